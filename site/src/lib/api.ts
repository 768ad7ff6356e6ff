/**
 * The API client (docs/product.md#how-the-site-talks-to-the-api), typed by the server's own app type through the Eden treaty,
 * so a changed route or payload breaks the site's type check instead of a screen.
 *
 * Every call goes through `call`, the one place that turns an answer into data or an Error whose
 * message is `${status}: ${body text || status text}`, and that ends the session on a 401.
 */
import { treaty, type Treaty } from '@elysiajs/eden';
import type { z } from 'zod';
import type { App } from '../../../api/server';
import type * as ProductSchemas from '../../../api/products/schemas';
import type * as BulkSchemas from '../../../api/products/bulk';
import type { ImportAnswer } from '../../../api/products/import';
import type { CsvError, CsvRow } from '../../../api/products/csv';
import type { CatalogueImportAnswer } from '../../../api/catalogue/import';
import type { CatalogueCsvError, CatalogueCsvRow } from '../../../api/catalogue/csv';
import type * as RuleInput from '../../../api/pricing/rule-input';
import type { ToastMessage } from '../stores/toast';
import { expireSession, SESSION_EXPIRED_TOAST } from './session';
import type { AlertType } from '../../../domain/alerts.ts';
import type { CHANNEL_TYPES } from '../../../events/catalogue.ts';

const client = treaty<App>(typeof location === 'undefined' ? 'http://localhost' : location.origin, {
  fetch: { credentials: 'include' },
  // Keep timestamps as the ISO strings the server sends; the screens format them.
  parseDate: false,
});

export type User = Treaty.Data<typeof client.api.auth.user.get>;
export type Settings = Parameters<typeof client.api.settings.put>[0];
export type DashboardStats = Treaty.Data<typeof client.api.dashboard.stats.get>;
export type PriceHistoryProduct = Treaty.Data<(typeof client.api)['price-history']['products']['get']>[number];
export type PricePoint = PriceHistoryProduct['priceHistory'][number];
export type HistoryRange = 'week' | 'month' | 'quarter' | 'year';
export type DetailRange = HistoryRange | 'all';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    bodyText: string,
    statusText: string,
  ) {
    super(`${status}: ${bodyText || statusText}`);
    this.name = 'ApiError';
  }
}

/** The spec's test for a signed-out answer, by message, so it also holds for rethrown errors. */
export function isUnauthorizedError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return message.startsWith('401: ') && message.includes('Unauthorized');
}

export function isNotFoundError(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

export type Alert = Treaty.Data<typeof client.api.alerts.get>[number];
export type AlertsQuery = Parameters<typeof client.api.alerts.page.get>[0]['query'];
export type UnreadCount = Treaty.Data<(typeof client.api.notifications)['unread-count']['get']>;
export type Notification = Treaty.Data<typeof client.api.notifications.get>[number];
export type Backtest = Treaty.Data<ReturnType<typeof client.api.products>['alert-backtest']['get']>;

/** A product as the list shows it, and the bodies of the add and edit calls. */
export type Product = Treaty.Data<typeof client.api.products.get>[number];
export type NewProduct = z.input<typeof ProductSchemas.AddProductBody>;
export type ProductChanges = z.input<typeof ProductSchemas.EditProductBody>;

type Answer = {
  data: unknown;
  error: { status: unknown; value: unknown } | null;
  response: Response | undefined;
  status: number;
};

type CallOptions = {
  /**
   * What a 401 does: by default the session ends (toast, then sign-in); a message replaces the
   * default toast; false leaves it to the caller (the current-user call, which may be signed out).
   */
  unauthorized?: ToastMessage | false;
};

/** The treaty has already parsed the body; JSON is written back compactly, as the server sends it. */
function bodyText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

async function call<A extends Answer>(request: Promise<A>, options: CallOptions = {}): Promise<NonNullable<A['data']>> {
  const { data, error, response, status } = await request;
  if (!error) return data as NonNullable<A['data']>;
  // No response: the request never reached the server (offline, DNS); the treaty holds the cause.
  if (!response) throw error.value instanceof Error ? error.value : new Error(bodyText(error.value));
  const apiError = new ApiError(status, bodyText(error.value), response.statusText);
  if (options.unauthorized !== false && isUnauthorizedError(apiError)) expireSession(options.unauthorized);
  throw apiError;
}

export type BulkRequest = z.input<typeof BulkSchemas.BulkBody>;

/** What an import answered: the counts, or why it imported nothing (bad rows, the plan's limit, a refused file). */
export type CsvImportResult<Answer, Row, LineError> =
  | { ok: true; answer: Answer }
  | { ok: false; status: number; message: string; errors: LineError[]; preview: Row[] };
export type ImportResult = CsvImportResult<ImportAnswer, CsvRow, CsvError>;

/**
 * Sends a CSV file to an import (a dry run for the preview). The body is the file itself, not
 * JSON, so it goes around the treaty; refusals are answers the dialog shows, not errors.
 */
async function sendCsv<Answer, Row, LineError>(path: string, file: Blob, opts: { dryRun: boolean }): Promise<CsvImportResult<Answer, Row, LineError>> {
  const response = await fetch(`${path}${opts.dryRun ? '?dryRun=1' : ''}`, {
    method: 'POST',
    body: file,
    credentials: 'include',
    headers: { 'content-type': 'text/csv' },
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return { ok: true, answer: body as Answer };
  const message = typeof body.message === 'string' ? body.message : `The import failed (${response.status}). Please try again.`;
  if (isUnauthorizedError(new ApiError(response.status, message, response.statusText))) expireSession();
  return { ok: false, status: response.status, message, errors: (body.errors as LineError[]) ?? [], preview: (body.preview as Row[]) ?? [] };
}

/** Your catalogue (the owner's own products) with where each stands against its linked competitors. */
export type CatalogueEntry = Treaty.Data<typeof client.api.catalogue.get>[number];
export type CatalogueCompetitor = CatalogueEntry['competitors'][number];
export type PositionSummary = Treaty.Data<typeof client.api.position.get>;
export type CatalogueSource = Treaty.Data<typeof client.api.catalogue.sources.get>[number];
export type SourceKind = Parameters<typeof client.api.catalogue.sources.post>[0]['kind'];
export type MatchSuggestion = Treaty.Data<typeof client.api.catalogue.matches.get>[number];
export type CatalogueSettings = Treaty.Data<typeof client.api.catalogue.settings.get>;
export type PositionPoint = Treaty.Data<ReturnType<typeof client.api.catalogue>['position-history']['get']>[number];

/** Pricing rules and recommendations on own products (docs/pricing.md#the-api). */
export type PricingRule = Treaty.Data<ReturnType<typeof client.api.catalogue>['rule']['put']>;
export type RuleBody = z.input<typeof RuleInput.RuleBody>;
export type Strategy = PricingRule['strategy'];
export type Rounding = PricingRule['rounding'];
export type RuleBacktest = Treaty.Data<ReturnType<typeof client.api.catalogue>['rule']['backtest']['post']>;
export type BacktestDay = RuleBacktest['days'][number];
export type Recommendation = RuleBacktest['recommendation'];
export type RecommendationAnswer = Treaty.Data<ReturnType<typeof client.api.catalogue>['recommendation']['get']>;
export type RecommendationEntry = Treaty.Data<typeof client.api.catalogue.recommendations.get>[number];
export type PriceEvidence = Recommendation['evidence'][number];
/** The URL of the new prices as a CSV file (applied ones the store has not confirmed; `waiting` adds the waiting ones). */
export const RECOMMENDATIONS_CSV = '/api/catalogue/recommendations/export.csv';

/** What a catalogue import answered, as a products import does. */
export type CatalogueImportResult = CsvImportResult<CatalogueImportAnswer, CatalogueCsvRow, CatalogueCsvError>;
export type { CatalogueImportAnswer, CatalogueCsvRow };

export const api = {
  auth: {
    user: () => call(client.api.auth.user.get(), { unauthorized: false }),
  },
  products: {
    list: () => call(client.api.products.get(), { unauthorized: SESSION_EXPIRED_TOAST }),
    // The treaty types these bodies as the server's schemas output them (thresholds as rules,
    // the price as a number); they send what the schemas take in.
    add: (product: NewProduct) => call(client.api.products.post(product as never)),
    edit: (id: string, changes: ProductChanges) => call(client.api.products({ id }).put(changes as never)),
    remove: (id: string) => call(client.api.products({ id }).delete()),
    updatePrice: (id: string, price: string) => call(client.api.products({ id })['update-price'].post({ price } as never)),
    checkPrice: (id: string) => call(client.api.products({ id })['check-price'].post()),
    bulk: (body: BulkRequest) => call(client.api.products.bulk.post(body as never)),
    importCsv: (file: Blob, opts: { dryRun: boolean }) => sendCsv<ImportAnswer, CsvRow, CsvError>('/api/products/import', file, opts),
  },
  settings: {
    /** null when the user has never saved settings (404): the defaults apply. */
    get: () =>
      call(client.api.settings.get()).catch((error) => {
        if (isNotFoundError(error)) return null;
        throw error;
      }),
    save: (settings: Settings) => call(client.api.settings.put(settings)),
  },
  /** Settings > API Access: the key masked, created or rotated (the full key is in that answer only), revoked. */
  apiKey: {
    get: () => call(client.api.settings['api-key'].get()),
    create: () => call(client.api.settings['api-key'].post()),
    revoke: () => call(client.api.settings['api-key'].delete()),
  },
  /** How each shop's checks went over the last 7 days (Products > Check health). */
  checkHealth: {
    get: () => call(client.api['check-health'].get({ query: { days: 7 } })),
  },
  dashboard: {
    stats: () => call(client.api.dashboard.stats.get(), { unauthorized: SESSION_EXPIRED_TOAST }),
  },
  history: {
    products: (timeFilter: HistoryRange) => call(client.api['price-history'].products.get({ query: { timeFilter } })),
    detailed: (productId: string, timeFilter: DetailRange) => call(client.api['price-history'].detailed({ productId }).get({ query: { timeFilter } })),
  },
  ai: {
    detectSelector: (url: string) => call(client.api.ai['detect-selector'].post({ url })),
    priceSuggestions: (productId: string, timeFilter: DetailRange) => call(client.api['price-suggestions'].post({ productId, timeFilter })),
  },
  alerts: {
    /** A page of the alerts the filters match (after the alert `before`), with how many match and how many are unread in all. */
    page: (query: AlertsQuery) => call(client.api.alerts.page.get({ query })),
    markRead: (id: string) => call(client.api.alerts({ id }).read.patch()),
    /** Every unread alert, however many pages the screen has loaded. */
    markAllRead: () => call(client.api.alerts['mark-all-read'].post()),
    /** How many alerts a threshold ('' for none, 'any', or a drop percent) would have raised lately. */
    backtest: (productId: string, threshold: string) => call(client.api.products({ id: productId })['alert-backtest'].get({ query: { threshold } })),
  },
  notifications: {
    list: () => call(client.api.notifications.get()),
    /** Every unread alert and notice, not only those listed. */
    unreadCount: () => call(client.api.notifications['unread-count'].get()),
    markRead: (id: string) => call(client.api.notifications({ id }).read.post()),
    markAllRead: () => call(client.api.notifications['mark-all-read'].post()),
  },
  /** Settings > Alert channels: webhooks, Slack, Discord and Telegram that alerts are delivered to. */
  channels: {
    list: () => call(client.api.channels.get()),
    /** A webhook's answer holds its signing secret, the only time it is shown. */
    add: (channel: NewChannel) => call(client.api.channels.post(channel)),
    change: (id: string, changes: ChannelChanges) => call(client.api.channels({ id }).patch(changes)),
    remove: (id: string) => call(client.api.channels({ id }).delete()),
    /** What the receiver really answered: delivered false with its status when it refused. */
    test: (id: string) => call(client.api.channels({ id }).test.post()),
    rotateSecret: (id: string) => call(client.api.channels({ id })['rotate-secret'].post()),
    deliveries: (id: string) => call(client.api.channels({ id }).deliveries.get()),
  },
  catalogue: {
    list: () => call(client.api.catalogue.get({ query: {} }), { unauthorized: SESSION_EXPIRED_TOAST }),
    position: () => call(client.api.position.get()),
    remove: (id: string) => call(client.api.catalogue({ id }).delete()),
    sources: () => call(client.api.catalogue.sources.get()),
    connect: (kind: SourceKind, url: string) => call(client.api.catalogue.sources.post({ kind, url })),
    disconnect: (id: string) => call(client.api.catalogue.sources({ id }).delete()),
    sync: (id: string) => call(client.api.catalogue.sources({ id }).sync.post()),
    matches: () => call(client.api.catalogue.matches.get()),
    decide: (ownProductId: string, productId: string, decision: 'accept' | 'reject') =>
      call(client.api.catalogue.matches.post({ ownProductId, productId, decision })),
    link: (id: string, productId: string) => call(client.api.catalogue({ id }).competitors({ productId }).put()),
    unlink: (id: string, productId: string) => call(client.api.catalogue({ id }).competitors({ productId }).delete()),
    history: (id: string, timeFilter: DetailRange) => call(client.api.catalogue({ id })['position-history'].get({ query: { timeFilter } })),
    settings: () => call(client.api.catalogue.settings.get()),
    saveSettings: (settings: Partial<CatalogueSettings> & Pick<CatalogueSettings, 'competitivePercent' | 'autoAcceptGtin'>) =>
      call(client.api.catalogue.settings.put(settings)),
    /** The owner's cost of one product (null clears it): what a rule's floor margin is over. */
    setCost: (id: string, cost: number | null) => call(client.api.catalogue({ id }).patch({ cost })),
    /** The product's pricing rule; null when it has none (404). */
    rule: (id: string) =>
      call(client.api.catalogue({ id }).rule.get()).catch((error) => {
        if (isNotFoundError(error)) return null;
        throw error;
      }),
    /** A bad rule is a 400 `{ message, field }` naming the field (`floor.amount`, `offsetPercent`). */
    saveRule: (id: string, rule: RuleBody) => call(client.api.catalogue({ id }).rule.put(rule as never)),
    removeRule: (id: string) => call(client.api.catalogue({ id }).rule.delete()),
    /** What the rule (the saved one, or `rule` unsaved) would have done over the range, and what it says now. */
    backtest: (id: string, timeFilter: HistoryRange, rule?: RuleBody) => call(client.api.catalogue({ id }).rule.backtest.post({ rule, timeFilter } as never)),
    recommendation: (id: string) => call(client.api.catalogue({ id }).recommendation.get()),
    /** `price`: the one the owner saw; a 409 when the recommendation has moved since. */
    apply: (id: string, price?: number) => call(client.api.catalogue({ id }).recommendation.apply.post(price === undefined ? {} : { price })),
    dismiss: (id: string, price?: number) => call(client.api.catalogue({ id }).recommendation.dismiss.post(price === undefined ? {} : { price })),
    undo: (id: string) => call(client.api.catalogue({ id }).recommendation.undo.post()),
    /** The waiting recommendations; with `includeAll`, every product with a rule (held, kept, applied). */
    recommendations: (includeAll = false) => call(client.api.catalogue.recommendations.get({ query: includeAll ? { include: 'all' } : {} })),
    /** Applies the waiting recommendations (only `ids` when given). */
    applyAll: (ids?: string[]) => call(client.api.catalogue.recommendations.apply.post(ids ? { ids } : {})),
    /**
     * Write access to a connected Shopify or WooCommerce store, so applied prices are written there
     * (docs/pricing.md): whether it is set, with a masked description, never the secret. A wrong
     * value is a 400 `{ message, field }` naming the field; a Merchant feed is refused with a 400.
     */
    writeAccess: {
      get: (id: string) => call(client.api.catalogue.sources({ id })['write-access'].get()),
      set: (id: string, access: { token: string } | { consumerKey: string; consumerSecret: string }) =>
        call(client.api.catalogue.sources({ id })['write-access'].put(access)),
      remove: (id: string) => call(client.api.catalogue.sources({ id })['write-access'].delete()),
    },
    /** `POST /api/catalogue/import`, sent as the file itself like the products import. */
    importCsv: (file: Blob, opts: { dryRun: boolean }) =>
      sendCsv<CatalogueImportAnswer, CatalogueCsvRow, CatalogueCsvError>('/api/catalogue/import', file, opts),
  },
  billing: {
    subscription: () => call(client.api.billing.subscription.get()),
    createTrialSetup: () => call(client.api.billing['create-trial-setup'].post()),
    createSubscription: (body: { plan: PaidPlanId; paymentMethodId: string }) => call(client.api.billing['create-subscription'].post(body)),
    cancel: () => call(client.api.billing['cancel-subscription'].post({})),
  },
};

export type ApiKeyStatus = Treaty.Data<(typeof client.api.settings)['api-key']['get']>;

/** Billing answers: times in Unix seconds, amounts in pence per month. */
export type BillingAnswer = Treaty.Data<typeof client.api.billing.subscription.get>;
export type TrialSetup = Treaty.Data<(typeof client.api.billing)['create-trial-setup']['post']>;
export type PaidPlanId = 'starter' | 'growth' | 'pro';

/** AI help answers (docs/product.md#ai-help): selector suggestions (confidence 0-100) and pricing suggestions (confidence 0-1). */
export type DetectedVariant = Extract<Treaty.Data<(typeof client.api.ai)['detect-selector']['post']>, { success: true }>['variants'][number];
export type SelectorSuggestion = Extract<Treaty.Data<(typeof client.api.ai)['detect-selector']['post']>, { success: true }>['selectors'][number];
export type PricingSuggestion = Treaty.Data<(typeof client.api)['price-suggestions']['post']>['suggestions'][number];

/** Alert channels (Settings > Alert channels): the target masked, secrets only in the answers that create them. */
export type Channel = Treaty.Data<typeof client.api.channels.get>[number];
/** The body that adds a channel: the chosen type's fields; no name when none was given (the server picks one). */
export type NewChannel = {
  type: (typeof CHANNEL_TYPES)[number];
  url?: string;
  botToken?: string;
  chatId?: string;
  name?: string;
  alertTypes: AlertType[];
};
export type ChannelChanges = { name?: string; enabled?: boolean; alertTypes?: AlertType[] };
export type TestDelivery = Treaty.Data<ReturnType<typeof client.api.channels>['test']['post']>;
/** One attempt to deliver an alert (or a test) to a channel, newest first; retryAt when another is scheduled. */
export type Delivery = Treaty.Data<ReturnType<typeof client.api.channels>['deliveries']['get']>[number];
