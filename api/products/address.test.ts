import { describe, expect, test } from 'bun:test';
import { normaliseAddress } from './address.ts';

describe('normaliseAddress', () => {
  test('scheme and host lower-case; the path keeps its case', () => {
    expect(normaliseAddress('HTTPS://Shop.EXAMPLE.com/Kettle')).toBe('https://shop.example.com/Kettle');
  });

  test('default ports go, other ports stay', () => {
    expect(normaliseAddress('http://shop.example:80/k')).toBe('http://shop.example/k');
    expect(normaliseAddress('https://shop.example:443/k')).toBe('https://shop.example/k');
    expect(normaliseAddress('https://shop.example:80/k')).toBe('https://shop.example:80/k');
    expect(normaliseAddress('http://shop.example:8080/k')).toBe('http://shop.example:8080/k');
  });

  test('the fragment goes', () => {
    expect(normaliseAddress('https://shop.example/k#reviews')).toBe('https://shop.example/k');
    expect(normaliseAddress('https://shop.example/k?size=2#')).toBe('https://shop.example/k?size=2');
  });

  test('campaign parameters go; the others stay as written and in order', () => {
    expect(normaliseAddress('https://shop.example/k?utm_source=news&variant=2&gclid=abc&colour=red&fbclid=x&utm_medium=mail')).toBe(
      'https://shop.example/k?variant=2&colour=red',
    );
    expect(normaliseAddress('https://shop.example/k?b=2&a=1')).toBe('https://shop.example/k?b=2&a=1');
    expect(normaliseAddress('https://shop.example/k?UTM_Campaign=x&q=a%20b')).toBe('https://shop.example/k?q=a%20b');
    expect(normaliseAddress('https://shop.example/k?utm_source=x')).toBe('https://shop.example/k');
    expect(normaliseAddress('https://shop.example/k?')).toBe('https://shop.example/k');
    // Only whole names: a parameter that merely starts like one is the shop's own.
    expect(normaliseAddress('https://shop.example/k?gclid_ref=1&utm=2')).toBe('https://shop.example/k?gclid_ref=1&utm=2');
  });

  test('the root has one trailing slash; a longer path keeps its own', () => {
    expect(normaliseAddress('https://shop.example')).toBe(normaliseAddress('https://shop.example/'));
    expect(normaliseAddress('https://shop.example?x=1')).toBe('https://shop.example/?x=1');
    expect(normaliseAddress('https://shop.example/k/')).not.toBe(normaliseAddress('https://shop.example/k'));
  });

  test('surrounding space is ignored; text that is no address gives null', () => {
    expect(normaliseAddress('  https://shop.example/k  ')).toBe('https://shop.example/k');
    expect(normaliseAddress('not an address')).toBeNull();
    expect(normaliseAddress('')).toBeNull();
  });

  test('addresses that differ only in what is removed are the same page', () => {
    const same = [
      'https://shop.example/kettle?size=2',
      'HTTPS://shop.example:443/kettle?size=2#top',
      'https://Shop.Example/kettle?utm_source=google&size=2&gclid=1',
    ].map(normaliseAddress);
    expect(new Set(same).size).toBe(1);
  });
});
