import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import type { Stripe, StripeElements } from '@stripe/stripe-js';
import { CreditCard, FlaskConical } from 'lucide-react';
import type { TrialSetup } from '../../lib/api';
import { Badge } from '../ui/Badge';
import { Skeleton } from '../ui/Skeleton';

export type PaymentMethodHandle = {
  /** Confirms the payment setup and answers the payment method's id; throws with the provider's message. */
  confirm: () => Promise<string>;
  /** The payment method of a setup confirmed on the provider's page, after it sent the browser back here. */
  confirmed: (clientSecret: string) => Promise<string>;
};

type Props = { setup: TrialSetup; returnUrl: string; onReady: (ready: boolean) => void; ref: Ref<PaymentMethodHandle> };

/** Stripe's Payment Element, or the labelled demo card when billing runs without Stripe. */
export function PaymentMethod(props: Props) {
  return props.setup.provider === 'stripe' ? <StripePaymentElement {...props} /> : <DemoCard {...props} />;
}

const paymentMethodOf = (pm: string | { id: string } | null | undefined) => {
  if (!pm) throw new Error('Your payment details could not be confirmed.');
  return typeof pm === 'string' ? pm : pm.id;
};

function StripePaymentElement({ setup, returnUrl, onReady, ref }: Props) {
  const mount = useRef<HTMLDivElement>(null);
  const stripe = useRef<{ stripe: Stripe; elements: StripeElements } | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');

  useEffect(() => {
    let live = true;
    let destroy = () => {};
    // The pure entry point loads Stripe.js only now, on the page that takes a card.
    import('@stripe/stripe-js/pure')
      .then(({ loadStripe }) => loadStripe(setup.publishableKey!))
      .then((loaded) => {
        if (!live) return;
        if (!loaded) throw new Error('Stripe.js could not be loaded.');
        const dark = document.documentElement.classList.contains('dark');
        const elements = loaded.elements({ clientSecret: setup.clientSecret, appearance: { theme: dark ? 'night' : 'stripe' } });
        const element = elements.create('payment');
        element.on('ready', () => {
          setState('ready');
          onReady(true);
        });
        element.mount(mount.current!);
        destroy = () => element.destroy();
        stripe.current = { stripe: loaded, elements };
      })
      .catch(() => live && setState('failed'));
    return () => {
      live = false;
      destroy();
      onReady(false);
    };
  }, [setup.clientSecret]);

  useImperativeHandle(ref, () => ({
    async confirm() {
      if (!stripe.current) throw new Error('The payment form is not ready yet.');
      const { error, setupIntent } = await stripe.current.stripe.confirmSetup({
        elements: stripe.current.elements,
        redirect: 'if_required',
        confirmParams: { return_url: returnUrl },
      });
      if (error) throw new Error(error.message ?? 'Your payment details could not be confirmed.');
      return paymentMethodOf(setupIntent.payment_method);
    },
    async confirmed(clientSecret) {
      if (!stripe.current) throw new Error('The payment form is not ready yet.');
      const { error, setupIntent } = await stripe.current.stripe.retrieveSetupIntent(clientSecret);
      if (error || setupIntent?.status !== 'succeeded') throw new Error(error?.message ?? 'Your payment details could not be confirmed.');
      return paymentMethodOf(setupIntent.payment_method);
    },
  }));

  return (
    <div>
      {state === 'loading' && <Skeleton className="h-44 w-full" />}
      {state === 'failed' && (
        <p role="alert" className="text-sm text-destructive">
          The payment form could not be loaded. Check your connection and reload the page.
        </p>
      )}
      <div ref={mount} />
    </div>
  );
}

const demoPaymentMethod = async () => `pm_demo_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;

/** The demo's card: nothing to type, nothing stored; the server takes only demo payment methods. */
function DemoCard({ onReady, ref }: Props) {
  useEffect(() => onReady(true), []);
  useImperativeHandle(ref, () => ({ confirm: demoPaymentMethod, confirmed: demoPaymentMethod }));

  return (
    <div role="group" aria-labelledby="demo-card-title" className="space-y-3 rounded-lg border border-dashed border-warning/60 bg-warning/10 p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p id="demo-card-title" className="flex items-center gap-2 text-sm font-semibold">
          <FlaskConical aria-hidden="true" className="size-4 text-warning" />
          Demo payment method
        </p>
        {/* Outlined: a tinted badge on the tinted box would lose its contrast. */}
        <Badge variant="outline">Demo mode</Badge>
      </div>
      <p className="text-sm text-muted-foreground">
        Payments are not set up on this server, so no card is needed and nothing is ever charged. The trial starts with this demo card.
      </p>
      <div className="flex items-center gap-3 rounded-md border bg-background px-3 py-2.5 text-sm">
        <CreditCard aria-hidden="true" className="size-5 text-muted-foreground" />
        <span className="font-medium">Demo Visa</span>
        <span className="font-mono text-muted-foreground">•••• 4242</span>
        <span className="ml-auto font-mono text-muted-foreground">12/34</span>
      </div>
    </div>
  );
}
