import type { ComponentProps } from 'react';
import { cn } from '../../lib/utils';

const variants = {
  default: 'border-transparent bg-primary text-primary-foreground',
  secondary: 'border-transparent bg-secondary text-secondary-foreground',
  destructive: 'border-transparent bg-destructive text-destructive-foreground',
  outline: 'text-foreground',
  success: 'border-transparent bg-success/15 text-success',
  warning: 'border-transparent bg-warning/15 text-warning',
  /** A quieter red than destructive, for states rather than changes. */
  danger: 'border-transparent bg-destructive/15 text-destructive',
};

export type BadgeProps = ComponentProps<'span'> & { variant?: keyof typeof variants };

export function Badge({ className, variant = 'default', ...props }: BadgeProps) {
  return (
    <span
      className={cn(
        'inline-flex w-fit shrink-0 items-center gap-1 whitespace-nowrap rounded-md border px-2 py-0.5 text-xs font-medium [&_svg]:size-3',
        variants[variant],
        className,
      )}
      {...props}
    />
  );
}
