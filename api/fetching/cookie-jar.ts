// Cookies within one fetch: shops often set a session or consent cookie and redirect back
// to the same page, which loops without it. Nothing is kept between fetches.

export type CookieJar = {
  remember(host: string, setCookie: string[] | undefined): void;
  header(host: string): string | undefined;
};

export function createCookieJar(): CookieJar {
  const byHost = new Map<string, Map<string, string>>();
  return {
    remember(host, setCookie) {
      for (const line of setCookie ?? []) {
        const pair = line.split(';', 1)[0];
        const equals = pair.indexOf('=');
        if (equals <= 0) continue;
        if (!byHost.has(host)) byHost.set(host, new Map());
        byHost.get(host)!.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
      }
    },
    header(host) {
      const cookies = byHost.get(host);
      return cookies?.size ? [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') : undefined;
    },
  };
}
