/** The FAQ of spec section 1. */
export const FAQ: { q: string; a: string }[] = [
  { q: 'Which accounting systems does LedgerFlow integrate with?', a: 'LedgerFlow integrates with NetSuite, Sage and QuickBooks. You can also upload CSV files exported from any other system.' },
  { q: 'Is my data updated in real time or in batches?', a: 'Both: connections can sync in real time on demand, or in batch on a schedule (daily by default).' },
  { q: 'Can I build custom reports?', a: 'Yes. Your consolidated data lands in your own SQL database, and custom reports and dashboards are built on top of it.' },
  { q: 'Can I control who sees what?', a: 'Yes. User roles decide what each person can do: admins manage organizations and users, finance users work with their own organization’s data.' },
  { q: 'Do you help us get started?', a: 'Yes. Every client is onboarded by our team, with training for your finance users.' },
];
