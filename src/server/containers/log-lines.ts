import { createInterface } from 'node:readline';
import { PassThrough, type Readable } from 'node:stream';

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
 * stamp. The sort is stable, so lines of one source with the same stamp keep their order.
 */
export function mergeStamped(parts: { prefix: string; text: string }[]): string {
  const all = parts.flatMap(({ prefix, text }) =>
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => ({ prefix, ...sortKey(l.replace(/\r$/, '')) })),
  );
  all.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return all.map((l) => `${l.prefix} | ${l.text}\n`).join('');
}

/**
 * Several followed logs as one text stream, each line prefixed with its source (if any), in the order lines
 * arrive. Ends when every source has ended; destroying it destroys the sources.
 */
export function mergeFollowed(parts: { prefix: string; stream: NodeJS.ReadableStream }[]): Readable {
  const out = new PassThrough();
  let open = parts.length;
  if (open === 0) out.end();
  for (const { prefix, stream } of parts) {
    const lead = prefix ? `${prefix} | ` : '';
    const rl = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
    rl.on('line', (line) => out.write(`${lead}${line}\n`));
    rl.on('close', () => {
      open -= 1;
      if (open === 0) out.end();
    });
  }
  out.on('close', () => {
    for (const { stream } of parts) (stream as Readable).destroy?.();
  });
  return out;
}
