import { ErrorMessage } from './error-message.tsx';

/** How the read of a screen's data goes: its failure, or while nothing came yet, a line that says it is being read. */
export function LoadState({ error, loading, text }: { error: unknown; loading: boolean; text: string }) {
  return (
    <>
      <ErrorMessage error={error} />
      {loading && !error && (
        <p class="muted" role="status">
          {text}
        </p>
      )}
    </>
  );
}
