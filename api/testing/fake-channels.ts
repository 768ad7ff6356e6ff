/**
 * Loopback receivers for alert channels: a webhook receiver, Slack and Discord incoming webhooks,
 * and the Telegram Bot API's sendMessage, on one HTTP server. Each path answers 200 unless told
 * otherwise, and every request is kept, so tests see exactly what went out.
 */

export type ReceivedRequest = { path: string; headers: Record<string, string>; body: string; json: any; at: number };
export type Reply = { status: number; headers?: Record<string, string>; body?: string };

export type FakeReceivers = {
  url: string;
  /** The Bot API base to configure as TELEGRAM_API_URL. */
  telegramApiUrl: string;
  received: ReceivedRequest[];
  /** Requests to one path. */
  to(path: string): ReceivedRequest[];
  /** Answers the next requests to `path` with these replies, in order, then 200 again. */
  reply(path: string, ...replies: Reply[]): void;
  /** Answers every request to `path` with this reply until called with null. */
  always(path: string, reply: Reply | null): void;
  stop(): void;
};

/** Bot tokens the fake Bot API knows, and the chats they may post to. */
export const TELEGRAM_TOKEN = '123456789:AAFakeTokenForTestsOnly_abcdefghijklmno';
export const TELEGRAM_CHAT = '-1001234567890';

export function startReceivers(): FakeReceivers {
  const received: ReceivedRequest[] = [];
  const queued = new Map<string, Reply[]>();
  const fixed = new Map<string, Reply>();
  let telegramMessages = 0;

  function telegram(path: string, json: any): Reply {
    const token = /^\/telegram\/bot([^/]+)\/sendMessage$/.exec(path)?.[1];
    const answer = (status: number, body: object) => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (token !== TELEGRAM_TOKEN) return answer(401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (String(json?.chat_id) !== TELEGRAM_CHAT) return answer(400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    if (typeof json?.text !== 'string' || !json.text) return answer(400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
    return answer(200, { ok: true, result: { message_id: ++telegramMessages, chat: { id: Number(TELEGRAM_CHAT) }, text: json.text } });
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const body = await request.text();
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* kept as text */
      }
      received.push({ path, headers: Object.fromEntries(request.headers), body, json, at: Date.now() });
      const reply =
        queued.get(path)?.shift() ??
        fixed.get(path) ??
        (path.startsWith('/telegram/') ? telegram(path, json) : { status: 200, body: path.startsWith('/slack') ? 'ok' : '' });
      return new Response(reply.status === 204 ? null : (reply.body ?? ''), { status: reply.status, headers: reply.headers });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    telegramApiUrl: `${url}/telegram`,
    received,
    to: (path) => received.filter((r) => r.path === path),
    reply: (path, ...replies) => queued.set(path, [...(queued.get(path) ?? []), ...replies]),
    always: (path, reply) => (reply ? fixed.set(path, reply) : fixed.delete(path)),
    stop: () => server.stop(true),
  };
}
