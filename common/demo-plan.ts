// The demo group's set-up, as its controller would hand it over: the group's settings, each
// entity's name, currency, ownership and parent, every source account's group account
// (intercompany accounts with their counterparty and category), the GBP and AUD rates (NetSuite
// brings EUR and CAD itself), the subsidiaries' historical capital rates and the budget CSV. The
// simulators write it from the books they serve (simulators/demo-plan.ts) into a file whose path
// npm start passes to the api in DEMO_CONNECTIONS; the api's demo seed reads it through this
// schema (api/demo/plan.ts). One contract, so the writer and the reader cannot drift apart.
import { z } from 'zod';
import { SYNC_PROVIDERS } from './contract/connections';

const text = z.string().min(1);
const role = text;

export const demoPlanSchema = z.object({
  months: z.array(z.string().regex(/^\d{4}-\d{2}$/)).min(1),
  /**
   * The month in progress by the simulators' clock (after the last of `months`): no books yet,
   * but ratesCsv (and NetSuite's consolidated rates) carry its rates, so the seed consolidates it
   * as in progress instead of leaving it blocked. Absent in a plan written before it existed.
   */
  monthInProgress: z.string().regex(/^\d{4}-\d{2}$/).optional(),
  settings: z.object({
    presentationCurrency: text,
    method: z.literal('full'),
    toleranceAmount: text,
    tolerancePct: text,
    fiscalYearStartMonth: z.number().int().min(1).max(12),
  }),
  entities: z.array(
    z.object({
      role,
      name: text,
      currency: text,
      ownership: text,
      parentRole: role.nullable(),
      source: z.enum(SYNC_PROVIDERS),
      /** The entity key trial_balance gives it. */
      entityKey: text,
      accounts: z.array(
        z.object({
          code: text,
          groupAccount: text,
          icCounterpartyRole: role.optional(),
          icCategory: z.enum(['receivable_payable', 'revenue_expense', 'investment_equity']).optional(),
        }),
      ),
    }),
  ),
  ratesCsv: z.string(),
  historicalRates: z.array(z.object({ role, groupAccount: text, rate: text })),
  /** Acquisitions (IFRS 3) as the api takes them, by the acquired entity's role. */
  acquisitions: z
    .array(
      z.object({
        role,
        date: text,
        consideration: text,
        considerationCurrency: text,
        nciMeasurement: z.enum(['proportionate', 'fair_value']),
        nciFairValue: text.nullable(),
        adjustments: z.array(z.object({ groupAccount: text, amount: text, usefulLifeMonths: z.number().int().nullable(), amortizationAccount: text.nullable() })),
      }),
    )
    .default([]),
  budgetCsv: z.string(),
});

export type DemoPlan = z.infer<typeof demoPlanSchema>;
