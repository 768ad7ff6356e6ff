/** The host whose checks rest together: host name (and port), lower case, without "www.". */
export function hostOf(url: string): string | null {
  try {
    const host = new URL(url).host.toLowerCase();
    return host ? host.replace(/^www\./, '') : null;
  } catch {
    return null;
  }
}
