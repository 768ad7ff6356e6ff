/** '/dashboard' for '/dashboard', '/dashboard/' and '/dashboard.html' (the static file name). */
export function normalizePath(pathname: string): string {
  return pathname.replace(/\.html$/, '').replace(/\/+$/, '') || '/';
}

/** Whether a sidebar link is the current page; the server shows the dashboard at '/' when signed in. */
export function isCurrentPage(href: string, pathname: string): boolean {
  const path = normalizePath(pathname);
  return path === href || (href === '/dashboard' && path === '/');
}
