import { useStore } from '@nanostores/react';
import { Moon, Sun } from 'lucide-react';
import { $resolvedTheme, toggleTheme } from '../../stores/theme';
import { Button } from '../ui/Button';
import { WithTooltip } from '../ui/Tooltip';

export function ThemeToggle() {
  const dark = useStore($resolvedTheme) === 'dark';
  const label = dark ? 'Switch to light theme' : 'Switch to dark theme';
  return (
    <WithTooltip label={label}>
      <Button variant="ghost" size="icon" aria-label={label} onClick={toggleTheme}>
        {dark ? <Sun aria-hidden="true" /> : <Moon aria-hidden="true" />}
      </Button>
    </WithTooltip>
  );
}
