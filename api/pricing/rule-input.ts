import { z } from 'zod';
import { DomainError } from '../../events/decider.ts';
import { RULE_DEFAULTS, ROUNDINGS, STRATEGIES, type PricingRule } from '../../domain/pricing.ts';
import { ListTimeFilter } from '../history/series.ts';

/**
 * A pricing rule as the owner sends it (PUT /api/catalogue/{id}/rule), checked in two steps: its
 * shape here, then what depends on the product (its cost, its linked competitors) in `ruleFor`.
 * Every refusal is a 400 naming the field.
 */
const amount = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .min(0, `${field} cannot be negative`)
    .max(1e9, `${field} is too large`);
const percentIn = (field: string, min: number, max: number) =>
  z
    .number({ error: `${field} must be a number` })
    .min(min, `${field} must be from ${min} to ${max}`)
    .max(max, `${field} must be from ${min} to ${max}`);

export const RuleBody = z.object({
  strategy: z.enum(STRATEGIES, { error: `strategy must be one of ${STRATEGIES.join(', ')}` }),
  offsetPercent: percentIn('offsetPercent', -50, 50).nullish(),
  offsetAmount: amount('offsetAmount').nullish(),
  floor: z.object(
    {
      costMarginPercent: z
        .number({ error: 'costMarginPercent must be a number' })
        .min(0, 'costMarginPercent cannot be negative: the floor is never below cost')
        .max(1000, 'costMarginPercent must be at most 1000')
        .nullish(),
      amount: amount('floor amount').nullish(),
    },
    { error: 'A rule needs a floor: a margin over cost, an amount, or both' },
  ),
  ceiling: z.object({ amount: amount('ceiling amount').nullish(), regular: z.boolean().optional() }).nullish(),
  rounding: z.enum(ROUNDINGS, { error: `rounding must be one of ${ROUNDINGS.join(', ')}` }).optional(),
  maxStepPercent: percentIn('maxStepPercent', 0.1, 100).optional(),
  minCompetitors: z
    .number()
    .int('minCompetitors must be a whole number')
    .min(1, 'minCompetitors must be from 1 to 50')
    .max(50, 'minCompetitors must be from 1 to 50')
    .optional(),
  spikePercent: percentIn('spikePercent', 1, 1000).optional(),
  competitors: z.array(z.string().max(100), { error: 'competitors must be a list of product ids' }).max(200).nullish(),
});
export type RuleBody = z.infer<typeof RuleBody>;

/** PATCH /api/catalogue/{id}: what the owner pays for the product; null clears it. */
export const CostBody = z.object({
  cost: z.number({ error: 'cost must be a number, or null to clear it' }).min(0, 'cost cannot be negative').max(1e9, 'cost is too large').nullable(),
});

export const BacktestBody = z.object({
  rule: RuleBody.optional(),
  timeFilter: ListTimeFilter.default('month'),
});

/** Optional: the price the owner saw, refused with 409 when the recommendation has moved since. */
export const ApplyBody = z
  .object({ price: z.number({ error: 'price must be a number' }).min(0, 'price cannot be negative').max(1e9, 'price is too large').optional() })
  .optional();

export const BulkApplyBody = z.object({ ids: z.array(z.string().max(100), { error: 'ids must be a list of product ids' }).max(10_000).optional() }).optional();

/** The rule with every field stated, or a 400 naming the field that makes it unusable for this product. */
export function ruleFor(body: RuleBody, product: { cost: number | null; linked: readonly string[] }): PricingRule {
  const offsetPercent = body.offsetPercent ?? null;
  const offsetAmount = body.offsetAmount ?? null;
  if (body.strategy === 'beat-cheapest') {
    if (offsetPercent === null && offsetAmount === null) {
      throw new DomainError('offsetPercent: beat-cheapest beats by a percent or by an amount: give one of them', 400, 'offsetPercent');
    }
    if (offsetPercent !== null && offsetAmount !== null) {
      throw new DomainError('offsetAmount: beat-cheapest beats by a percent or by an amount, not both', 400, 'offsetAmount');
    }
    if (offsetPercent !== null && offsetPercent < 0) throw new DomainError('offsetPercent: beating by a negative percent is not beating', 400, 'offsetPercent');
  } else if (offsetAmount !== null) {
    throw new DomainError(`offsetAmount: only beat-cheapest takes an amount`, 400, 'offsetAmount');
  }
  if (body.strategy === 'stay-cheapest-by' && (offsetPercent === null || offsetPercent < 0)) {
    throw new DomainError('offsetPercent: stay-cheapest-by needs how far under the cheapest to stay, from 0 to 50', 400, 'offsetPercent');
  }
  if ((body.strategy === 'match-cheapest' || body.strategy === 'second-cheapest') && offsetPercent !== null && offsetPercent !== 0) {
    throw new DomainError(`offsetPercent: ${body.strategy} takes no offset`, 400, 'offsetPercent');
  }
  const margin = body.floor.costMarginPercent ?? null;
  const floorAmount = body.floor.amount ?? null;
  if (margin === null && floorAmount === null) throw new DomainError('floor: a rule needs a floor: a margin over cost, an amount, or both', 400, 'floor');
  if (floorAmount === null && product.cost === null) {
    throw new DomainError('floor: this product has no cost, so the floor needs an amount (or set the cost first)', 400, 'floor.amount');
  }
  const ceilingAmount = body.ceiling?.amount ?? null;
  if (ceilingAmount !== null && floorAmount !== null && ceilingAmount < floorAmount) {
    throw new DomainError('ceiling.amount: the ceiling cannot be below the floor', 400, 'ceiling.amount');
  }
  const competitors = body.competitors ? [...new Set(body.competitors)] : null;
  const stranger = competitors?.find((id) => !product.linked.includes(id));
  if (stranger !== undefined) throw new DomainError('competitors: only competitors linked to this product can count', 400, 'competitors');
  if (competitors && competitors.length === 0)
    throw new DomainError('competitors: choose at least one, or leave it out to count every linked competitor', 400, 'competitors');
  return {
    strategy: body.strategy,
    offsetPercent,
    offsetAmount,
    floor: { costMarginPercent: margin, amount: floorAmount },
    ceiling: { amount: ceilingAmount, regular: body.ceiling?.regular ?? false },
    rounding: body.rounding ?? RULE_DEFAULTS.rounding,
    maxStepPercent: body.maxStepPercent ?? RULE_DEFAULTS.maxStepPercent,
    minCompetitors: body.minCompetitors ?? RULE_DEFAULTS.minCompetitors,
    spikePercent: body.spikePercent ?? RULE_DEFAULTS.spikePercent,
    competitors,
  };
}
