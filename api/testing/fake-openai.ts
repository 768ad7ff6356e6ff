import type { Server } from 'bun';

/**
 * An OpenAI-shaped chat completions API on loopback (POST /v1/chat/completions), for tests that
 * drive the real `openai` SDK. Each request is answered by `answer`, which the test swaps:
 * it gets the request body and returns the assistant message content (a string), a full
 * response, or a delay before answering.
 */
export type ChatRequest = {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; schema: unknown; strict?: boolean } };
};

export type FakeAnswer = { content: string } | { status: number; body: unknown } | { delayMs: number; content: string };

export type FakeOpenAI = {
  url: string;
  requests: ChatRequest[];
  answer: (request: ChatRequest) => FakeAnswer;
  stop(): void;
};

export function startFakeOpenAI(): FakeOpenAI {
  const fake: FakeOpenAI = {
    url: '',
    requests: [],
    answer: () => ({ content: '{}' }),
    stop: () => server.stop(true),
  };
  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const { pathname } = new URL(request.url);
      if (request.method !== 'POST' || pathname !== '/v1/chat/completions') return Response.json({ error: { message: 'Not found' } }, { status: 404 });
      if (request.headers.get('authorization') !== 'Bearer test-key') return Response.json({ error: { message: 'Incorrect API key' } }, { status: 401 });
      const body = (await request.json()) as ChatRequest;
      fake.requests.push(body);
      const answer = fake.answer(body);
      if ('status' in answer) return Response.json(answer.body, { status: answer.status });
      if ('delayMs' in answer) await Bun.sleep(answer.delayMs);
      return Response.json({
        id: `chatcmpl-${fake.requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: answer.content, refusal: null }, finish_reason: 'stop', logprobs: null }],
      });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}/v1`;
  return fake;
}
