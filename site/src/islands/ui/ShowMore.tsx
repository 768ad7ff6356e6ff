import { useEffect, useRef, useState } from 'react';
import { Button } from './Button';

/**
 * The first `page` items of a long list, and more as the reader scrolls near the end: a catalogue
 * of 1,000 products renders a screenful at once instead of every card. Back to the first page
 * whenever `resetKey` changes (a new search shows its best matches first).
 */
export function usePaged<T>(items: readonly T[], page: number, resetKey: unknown) {
  const [count, setCount] = useState(page);
  useEffect(() => setCount(page), [resetKey, page]);
  return { shown: items.slice(0, count), remaining: Math.max(0, items.length - count), more: () => setCount((n) => n + page) };
}

/**
 * Below a paged list: a button that shows the next page (keyboard and screen-reader users get
 * more the same way), pressed by itself when it scrolls into view.
 */
export function ShowMore({ remaining, onMore, noun }: { remaining: number; onMore: () => void; noun: string }) {
  const ref = useRef<HTMLButtonElement>(null);
  const latest = useRef(onMore);
  latest.current = onMore;
  useEffect(() => {
    const button = ref.current;
    if (!button || typeof IntersectionObserver === 'undefined') return;
    // Starts a screen early, so scrolling rarely meets the end of the list.
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && latest.current(), { rootMargin: '0px 0px 800px 0px' });
    observer.observe(button);
    return () => observer.disconnect();
  }, [remaining]); // observed afresh after each page: a button still in view then asks for the next
  if (remaining <= 0) return null;
  return (
    <div className="flex justify-center">
      <Button ref={ref} variant="outline" onClick={onMore}>
        Show more {noun} ({remaining.toLocaleString('en-GB')} left)
      </Button>
    </div>
  );
}
