// Operator view of fee revenue: the commissions settlement took, per UTC day and market, over a time range.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import { ok } from '../api/envelope.js';
import { responses } from '../api/schemas/envelope.js';
import { FeeRevenuePage } from '../api/schemas/admin.js';
import { invalidField } from '../protocol/errors.js';
import type { ReadModels } from '../store/ports.js';
import { checksumAddress } from '../protocol/address.js';

const DAY_MS = 86_400_000;
const DAY = '^\\d{4}-\\d{2}-\\d{2}$';
/** What one request may span: a year of days. */
const MAX_DAYS = 366;

export interface FeeAdminDeps {
  readModels: Pick<ReadModels, 'fees'>;
  config: Pick<Config, 'fees'>;
  now: () => number;
}

const Query = Type.Object({
  from: Type.Optional(Type.String({ pattern: DAY, description: 'first UTC day (YYYY-MM-DD); default 30 days before `to`' })),
  to: Type.Optional(Type.String({ pattern: DAY, description: 'last UTC day, included (YYYY-MM-DD); default today' })),
});

/** Start of a UTC day in ms; NaN for a day the calendar lacks (2026-02-30). */
function dayStart(day: string): number {
  const t = Date.parse(`${day}T00:00:00.000Z`);
  return Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== day ? NaN : t;
}

export const feeAdminRoutes: FastifyPluginAsyncTypebox<FeeAdminDeps> = async (app, deps) => {
  const description =
    'Fees settlement took, summed per UTC day and market (wei strings): `fees` in all, `affiliateFees` the part paid to ' +
    'affiliates, `feeAccountFees` the rest, paid to `feeAccount`; `charges` how many bettor positions paid one. Days ' +
    'then markets in order; `totals` sums the range.';
  app.get('/admin/fees', { schema: { tags: ['admin'], description, querystring: Query, response: responses(FeeRevenuePage) } }, async (request) => {
    const today = new Date(deps.now()).toISOString().slice(0, 10);
    const toDay = request.query.to ?? today;
    const end = dayStart(toDay) + DAY_MS;
    const start = request.query.from !== undefined ? dayStart(request.query.from) : end - 30 * DAY_MS;
    if (Number.isNaN(start) || Number.isNaN(end)) throw invalidField(Number.isNaN(end) ? 'to' : 'from', 'format', 'from and to are UTC days, YYYY-MM-DD', 'INVALID_DATE_RANGE');
    if (start >= end) throw invalidField('from', 'maximum', 'from must not be after to', 'INVALID_DATE_RANGE');
    if (end - start > MAX_DAYS * DAY_MS) throw invalidField('from', 'minimum', `a range spans at most ${MAX_DAYS} days`, 'INVALID_DATE_RANGE');
    const rows = await deps.readModels.fees.feeRevenue(start, end);
    const sum = (pick: (r: (typeof rows)[number]) => bigint) => rows.reduce((s, r) => s + pick(r), 0n).toString();
    return ok({
      feeAccount: checksumAddress(deps.config.fees.account),
      from: new Date(start).toISOString().slice(0, 10),
      to: new Date(end - DAY_MS).toISOString().slice(0, 10),
      days: rows.map((r) => ({
        day: r.day,
        marketHash: r.marketHash,
        fees: r.fees.toString(),
        affiliateFees: r.affiliateFees.toString(),
        feeAccountFees: (r.fees - r.affiliateFees).toString(),
        charges: r.charges,
      })),
      totals: { fees: sum((r) => r.fees), affiliateFees: sum((r) => r.affiliateFees), feeAccountFees: sum((r) => r.fees - r.affiliateFees) },
    });
  });
};
