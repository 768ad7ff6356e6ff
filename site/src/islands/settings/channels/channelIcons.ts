import { Hash, MessagesSquare, Send, Webhook } from 'lucide-react';
import type { ChannelType } from '../../../lib/channels';

/** Each channel type's icon, on its card and in the add dialog's type picker. */
export const TYPE_ICONS: Record<ChannelType, typeof Webhook> = { webhook: Webhook, slack: Hash, discord: MessagesSquare, telegram: Send };

export const FallbackIcon = Webhook;
