import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { maskText, streamMask } from './mask-secrets.ts';

/** The whole text of a finite stream. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

const STAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d) (.*)$/;

/** A sort key that orders RFC 3339 stamps of any fraction length (the engine may trim zeros). */
function sortKey(line: string): { key: string; text: string } {
  const m = STAMPED.exec(line);
  if (!m) return { key: '', text: line };
  return { key: `${m[1]}.${(m[2] ?? '').padEnd(9, '0')}`, text: m[4] ?? '' };
}

/**
 * Lines of several time-stamped logs in time order, each prefixed with its source and without the
 * stamp, with `secrets` (from logSecretList) masked. The sort is stable, so lines of one source with
 * the same stamp keep their order.
 */
export function mergeStamped(parts: { prefix: string; text: string }[], secrets: readonly string[] = []): string {
  const all = parts.flatMap(({ prefix, text }) =>
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => ({ prefix, ...sortKey(l.replace(/\r$/, '')) })),
  );
  all.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return all.map((l) => `${l.prefix} | ${maskText(l.text, secrets)}\n`).join('');
}

/**
 * The longest line passed on whole. A program that prints without newlines would otherwise make the
 * unfinished line grow without bound; longer lines are passed on in pieces of this size.
 */
export const MAX_LINE_CHARS = 64 * 1024;

/**
 * Splits text arriving in chunks into lines (without `\n` or a trailing `\r`); multi-byte characters may
 * span chunks. `whole` is false for the pieces of a line longer than MAX_LINE_CHARS but its last.
 */
export function lineSplitter(onLine: (line: string, whole: boolean) => void): { push(chunk: Buffer | string): void; end(): void } {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const emit = (line: string) => onLine(line.endsWith('\r') ? line.slice(0, -1) : line, true);
  return {
    push(chunk) {
      rest += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let start = 0;
      for (let i = rest.indexOf('\n'); i !== -1; i = rest.indexOf('\n', start)) {
        emit(rest.slice(start, i));
        start = i + 1;
      }
      rest = rest.slice(start);
      while (rest.length > MAX_LINE_CHARS) {
        onLine(rest.slice(0, MAX_LINE_CHARS), false);
        rest = rest.slice(MAX_LINE_CHARS);
      }
    },
    end() {
      rest += decoder.end();
      if (rest !== '') emit(rest);
      rest = '';
    },
  };
}

/**
 * One source's lines with `secrets` masked. A line is masked whole; the pieces of an overlong line go
 * through a stream mask, which keeps back a piece's end that could be the start of a secret.
 */
function maskedLines(secrets: readonly string[], onLine: (line: string) => void) {
  if (secrets.length === 0) return lineSplitter(onLine);
  const mask = streamMask(secrets);
  return lineSplitter((line, whole) => {
    const text = mask.push(line) + (whole ? mask.flush() : '');
    if (whole || text !== '') onLine(text);
  });
}

/**
 * Several followed logs as one text stream, each line prefixed with its source (if any), in the order lines
 * arrive, with `secrets` (from logSecretList) masked. Backpressure reaches the sources: while the reader is
 * behind (the output's buffer is full) every source is paused, so the engine stops sending instead of Kade
 * buffering. Ends when every source has ended; destroying it destroys the sources.
 */
export function mergeFollowed(parts: { prefix: string; stream: NodeJS.ReadableStream }[], secrets: readonly string[] = []): Readable {
  const out = new PassThrough();
  const sources = parts.map((p) => p.stream as Readable);
  let open = parts.length;
  if (open === 0) out.end();
  const write = (text: string) => {
    if (out.destroyed || out.writableEnded) return;
    if (!out.write(text)) for (const s of sources) s.pause();
  };
  out.on('drain', () => {
    for (const s of sources) s.resume();
  });
  for (const { prefix, stream } of parts) {
    const lead = prefix ? `${prefix} | ` : '';
    const lines = maskedLines(secrets, (line) => write(`${lead}${line}\n`));
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      lines.end();
      open -= 1;
      if (open === 0 && !out.destroyed) out.end();
    };
    stream.on('data', (chunk: Buffer | string) => lines.push(chunk));
    stream.on('end', finish);
    stream.on('close', finish);
    // A broken engine stream ends its part of the log; the others go on.
    stream.on('error', finish);
  }
  out.on('close', () => {
    for (const s of sources) s.destroy();
  });
  return out;
}
