import { useState } from 'react';
import { Package } from 'lucide-react';
import { cn } from '../../lib/utils';

/** The shop's product image, or a package icon when there is none or it fails to load. Decorative: the name is beside it. */
export function ProductImage({ url, className }: { url: string | null; className?: string }) {
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  const box = cn('flex size-12 shrink-0 rounded-md border', className);
  if (url && failedUrl !== url) {
    return <img src={url} alt="" loading="lazy" referrerPolicy="no-referrer" onError={() => setFailedUrl(url)} className={cn(box, 'bg-muted object-cover')} />;
  }
  return (
    <span aria-hidden="true" className={cn(box, 'items-center justify-center bg-muted text-muted-foreground')}>
      <Package className="size-5" />
    </span>
  );
}
