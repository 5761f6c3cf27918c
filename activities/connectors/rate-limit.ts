// Spaces requests per key (a QuickBooks company) so that no more than `perSecond` start in any
// second from this worker process. Intuit allows 10 requests per second per company.
const nextSlot = new Map<string, number>();

export async function takeSlot(key: string, perSecond: number): Promise<void> {
  const spacing = 1000 / perSecond;
  const now = Date.now();
  const slot = Math.max(now, nextSlot.get(key) ?? 0);
  nextSlot.set(key, slot + spacing);
  if (slot > now) await new Promise((r) => setTimeout(r, slot - now));
}
