import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { acceptedEncodings, compression } from './compression.ts';

const big = { items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `Product ${i}`, price: 19.99 })) };

const app = new Elysia()
  .use(compression)
  .get('/big', ({ cookie }) => {
    cookie.seen!.set({ value: 'yes', path: '/' });
    return big;
  })
  .get('/small', () => ({ ok: true }))
  .get('/missing', ({ set }) => {
    set.status = 404;
    return { message: 'Not found', detail: 'x'.repeat(2000) };
  })
  .get('/stream', () => new Response('data: ' + 'x'.repeat(5000) + '\n\n', { headers: { 'content-type': 'text/event-stream' } }))
  .get('/page', () => new Response('<p>' + 'hello '.repeat(500) + '</p>', { headers: { 'content-type': 'text/html; charset=utf-8' } }));

const get = (path: string, acceptEncoding?: string) =>
  app.handle(new Request(`http://localhost${path}`, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }));

const body = async (res: Response) => {
  const bytes = Buffer.from(await res.arrayBuffer());
  const encoding = res.headers.get('content-encoding');
  return (encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
};

describe('Accept-Encoding', () => {
  test('brotli first, then gzip; q=0 refuses; * stands for the others', () => {
    expect(acceptedEncodings('gzip, deflate, br, zstd')).toEqual(['br', 'gzip']);
    expect(acceptedEncodings('gzip')).toEqual(['gzip']);
    expect(acceptedEncodings('br;q=0, gzip;q=0.5')).toEqual(['gzip']);
    expect(acceptedEncodings('*')).toEqual(['br', 'gzip']);
    expect(acceptedEncodings('*;q=0, identity')).toEqual([]);
    expect(acceptedEncodings(null)).toEqual([]);
  });
});

describe('responses made at request time', () => {
  test('JSON over 1 KB is compressed as the client asks, with its cookies and status kept', async () => {
    for (const [accept, encoding] of [
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
    ] as const) {
      const res = await get('/big', accept);
      expect(res.headers.get('content-encoding')).toBe(encoding);
      expect(res.headers.get('vary')).toBe('Accept-Encoding');
      expect(res.headers.get('content-type')).toStartWith('application/json');
      expect(res.headers.get('set-cookie')).toContain('seen=yes');
      expect(JSON.parse(await body(res))).toEqual(big);
    }
    const missing = await get('/missing', 'br');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-encoding')).toBe('br');
    expect(JSON.parse(await body(missing)).message).toBe('Not found');
  });

  test('small answers, clients that ask for nothing, and event streams go as they are', async () => {
    const small = await get('/small', 'br');
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(await small.json()).toEqual({ ok: true });
    const plain = await get('/big');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.json()).toEqual(big);
    const stream = await get('/stream', 'br');
    expect(stream.headers.get('content-encoding')).toBeNull();
  });

  test('an HTML Response is compressed too', async () => {
    const res = await get('/page', 'gzip');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await body(res)).toContain('hello hello');
  });
});
