import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps what it accepted.
 * A message counts as accepted only when the server answered 250 on a connection still open:
 * a client that went away before the answer left the server with nothing to deliver.
 */

export type ReceivedMail = {
  raw: string;
  to: string[];
  messageId: string | null;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  acceptedAt: number;
};

export type TestSmtp = {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** Messages are held before the server answers, until `release()`; `onHeld` fires for each. */
  hold(onHeld?: () => void): void;
  release(): void;
  /** Answers every message with this SMTP error until called with null. */
  refuse(reply: { code: number; message: string } | null): void;
  stop(): Promise<void>;
};

export async function startSmtp(port = 0): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const closed = new Set<string>();
  let held: (() => void)[] | null = null;
  let onHeld: (() => void) | undefined;
  let refusal: { code: number; message: string } | null = null;
  let counter = 0;

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 50, // stop() does not wait for clients' idle pooled connections
    onClose(session) {
      closed.add(session.id);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const answer = () => {
          if (refusal) {
            const err = Object.assign(new Error(refusal.message), { responseCode: refusal.code });
            return callback(err);
          }
          if (closed.has(session.id)) return; // the client is gone: no answer, nothing accepted
          const raw = Buffer.concat(chunks).toString('utf8');
          received.push({ ...parseMessage(raw), to: session.envelope.rcptTo.map((r) => r.address), acceptedAt: performance.now() });
          callback(null, `OK: queued as test-${++counter}`);
        };
        if (held) {
          held.push(answer);
          onHeld?.();
        } else answer();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.server.address() as { port: number }).port;
  return {
    port: actual,
    url: `smtp://127.0.0.1:${actual}`,
    received,
    hold(fn) {
      held = [];
      onHeld = fn;
    },
    release() {
      const waiting = held ?? [];
      held = null;
      for (const answer of waiting) answer();
    },
    refuse(reply) {
      refusal = reply;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Headers and the decoded text and HTML parts of a MIME message (what our mails use). */
export function parseMessage(raw: string): Omit<ReceivedMail, 'to' | 'acceptedAt'> {
  const { headers, body } = splitHeaders(raw);
  const parts: { type: string; content: string }[] = [];
  collect(headers, body, parts);
  return {
    raw,
    headers,
    messageId: headers['message-id'] ?? null,
    subject: decodeWords(headers.subject ?? ''),
    text: parts.find((p) => p.type === 'text/plain')?.content ?? '',
    html: parts.find((p) => p.type === 'text/html')?.content ?? '',
  };
}

function splitHeaders(raw: string): { headers: Record<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: end < 0 ? '' : raw.slice(end + 4) };
}

function collect(headers: Record<string, string>, body: string, parts: { type: string; content: string }[]) {
  const type = (headers['content-type'] ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (type.startsWith('multipart/') && boundary) {
    for (const section of body.split(`--${boundary}`).slice(1)) {
      if (section.startsWith('--')) break;
      const part = splitHeaders(section.replace(/^\r\n/, ''));
      collect(part.headers, part.body, parts);
    }
    return;
  }
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  const bytes =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
        : Buffer.from(body, 'utf8');
  parts.push({ type, content: bytes.toString('utf8').replace(/\r\n/g, '\n').replace(/\n$/, '') });
}

function decodeQuotedPrintable(text: string): Buffer {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    if (joined[i] === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i]!, 'utf8'));
  }
  return Buffer.from(bytes);
}

/** RFC 2047 encoded words ('=?UTF-8?Q?...?=' and '=?UTF-8?B?...?='). */
function decodeWords(text: string): string {
  return text
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset, enc: string, data: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')).toString('utf8'),
    );
}
