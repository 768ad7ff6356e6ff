import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DomainError } from '../../events/decider.ts';
import { SETUP_TIMEOUT, testDatabase } from '../testing/database.ts';
import {
  describeStoreAccess,
  parseStoreAccess,
  readStoreAccess,
  removeStoreAccess,
  type StoreAccess,
  STORE_ACCESS_DDL,
  saveStoreAccess,
  storeAccessState,
} from './store-access.ts';

function refusal(run: () => unknown): { status: number; message: string; field?: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return { status: error.status, message: error.message, field: error.field };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('the write access in a request', () => {
  test('Shopify takes a token, trimmed, with or without the usual shpat_ prefix', () => {
    expect(parseStoreAccess('shopify', { token: ' shpat_0123456789abcdef ' })).toEqual({ kind: 'shopify', token: 'shpat_0123456789abcdef' });
    expect(parseStoreAccess('shopify', { token: 'abc123' })).toEqual({ kind: 'shopify', token: 'abc123' });
  });

  test('WooCommerce takes a consumer key and secret', () => {
    expect(parseStoreAccess('woocommerce', { consumerKey: 'ck_1f', consumerSecret: 'cs_2e' })).toEqual({
      kind: 'woocommerce',
      consumerKey: 'ck_1f',
      consumerSecret: 'cs_2e',
    });
  });

  test('a wrong body is refused naming the field', () => {
    const cases: [StoreAccess['kind'], unknown, string, string][] = [
      ['shopify', {}, 'token', 'token: token must be the Admin API access token as text'],
      ['shopify', { token: '  ' }, 'token', 'token: Please enter the Admin API access token'],
      ['shopify', { token: 'x'.repeat(201) }, 'token', 'token: token must be at most 200 characters'],
      ['shopify', { token: 'shpat_a b' }, 'token', 'token: token must be the Admin API access token exactly as shown, without spaces'],
      ['shopify', { token: 'shpat_a\r\nX-Evil: 1' }, 'token', 'token: token must be the Admin API access token exactly as shown, without spaces'],
      ['woocommerce', { token: 'shpat_1' }, 'consumerKey', 'consumerKey: consumerKey must be the consumer key as text'],
      [
        'woocommerce',
        { consumerKey: 'cs_1', consumerSecret: 'cs_2' },
        'consumerKey',
        'consumerKey: consumerKey must start with ck_ (the consumer key as WooCommerce shows it)',
      ],
      [
        'woocommerce',
        { consumerKey: 'ck_1', consumerSecret: 'secret' },
        'consumerSecret',
        'consumerSecret: consumerSecret must start with cs_ (the consumer secret as WooCommerce shows it)',
      ],
      [
        'woocommerce',
        { consumerKey: 'ck_1', consumerSecret: `cs_${'9'.repeat(198)}` },
        'consumerSecret',
        'consumerSecret: consumerSecret must be at most 200 characters',
      ],
    ];
    for (const [kind, body, field, message] of cases) expect(refusal(() => parseStoreAccess(kind, body))).toEqual({ status: 400, message, field });
  });

  test('is described without its secret', () => {
    expect(describeStoreAccess({ kind: 'shopify', token: 'shpat_0123456789abcdefa1b2' })).toBe('Admin API token …a1b2');
    expect(describeStoreAccess({ kind: 'woocommerce', consumerKey: 'ck_0123456789abcdef9f3e', consumerSecret: 'cs_secret_secret' })).toBe(
      'Consumer key ck_…9f3e',
    );
    // A short token would be mostly shown by its end.
    expect(describeStoreAccess({ kind: 'shopify', token: 'shpat_ab12' })).toBe('Admin API token …');
  });
});

describe('stored access', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  beforeAll(async () => {
    db = await testDatabase();
    await db.sql.unsafe(STORE_ACCESS_DDL);
    // Run at every start: it must be idempotent.
    await db.sql.unsafe(STORE_ACCESS_DDL);
  }, SETUP_TIMEOUT);
  afterAll(() => db.close());

  const shopify: StoreAccess = { kind: 'shopify', token: 'shpat_0123456789abcdefa1b2' };
  const woo: StoreAccess = { kind: 'woocommerce', consumerKey: 'ck_0123456789abcdef9f3e', consumerSecret: 'cs_0123456789abcdef' };

  test('is saved, replaced, read and removed per source', async () => {
    expect(await readStoreAccess(db.sql, 'source-1')).toBeNull();
    expect(await storeAccessState(db.sql, 'source-1')).toEqual({ connected: false, description: null });
    await saveStoreAccess(db.sql, 'source-1', 'user-1', shopify);
    expect(await readStoreAccess(db.sql, 'source-1')).toEqual(shopify);
    await saveStoreAccess(db.sql, 'source-1', 'user-1', { kind: 'shopify', token: 'shpat_another_token_99zz' });
    expect(await storeAccessState(db.sql, 'source-1')).toEqual({ connected: true, description: 'Admin API token …99zz' });
    await saveStoreAccess(db.sql, 'source-2', 'user-1', woo);
    expect(await readStoreAccess(db.sql, 'source-2')).toEqual(woo);

    expect(await removeStoreAccess(db.sql, 'source-1', 'user-1')).toBe(true);
    expect(await removeStoreAccess(db.sql, 'source-1', 'user-1')).toBe(false);
    expect(await readStoreAccess(db.sql, 'source-1')).toBeNull();
    expect(await readStoreAccess(db.sql, 'source-2')).toEqual(woo);
  });

  test("another user can neither replace nor remove a source's access", async () => {
    await saveStoreAccess(db.sql, 'source-3', 'user-1', shopify);
    await saveStoreAccess(db.sql, 'source-3', 'user-2', { kind: 'shopify', token: 'shpat_intruder_token_0000' });
    expect(await removeStoreAccess(db.sql, 'source-3', 'user-2')).toBe(false);
    expect(await readStoreAccess(db.sql, 'source-3')).toEqual(shopify);
  });

  test('a damaged row reads as no access', async () => {
    await db.sql`INSERT INTO catalogue_source_access (source_id, user_id, access) VALUES ('source-4', 'user-1', ${db.sql.json({ kind: 'shopify' })})`;
    expect(await readStoreAccess(db.sql, 'source-4')).toBeNull();
  });
});
