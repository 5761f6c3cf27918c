// The overview's charts, drawn with chart.js. This module is the only one that imports chart.js
// and is itself loaded with React.lazy from the overview: the library is a chunk of its own that
// only the Dashboard page asks for (the login page's JavaScript budget stays as it was).
import { H3 } from '@blueprintjs/core';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useMemo, useRef } from 'react';
import type { OverviewAnswer, OverviewMonthAnswer } from './api/overview';
import { amountText, contributionRows, shortMonth } from './overview-format';

// Only what these charts draw is registered, so the rest of chart.js is left out of the chunk.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Tooltip, Legend);

const BLUE = '#2d72d2';
const GREEN = '#238551';
const RED = '#cd4246';
const GOLD = '#c87619';
const PURPLE = '#7961db';

/** Decimal text as a number for drawing (the tables show the exact text). */
const num = (v: string | null): number | null => (v === null ? null : Number(v));

function ChartCanvas({ config, label }: { config: ChartConfiguration; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, config);
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="overview-chart-box">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}

function options(currency: string, horizontal = false): ChartConfiguration['options'] {
  const money = (v: number | string) => `${amountText(String(v), 0)}`;
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    indexAxis: horizontal ? 'y' : 'x',
    plugins: {
      legend: { position: 'bottom' },
      tooltip: { callbacks: { label: (c) => `${c.dataset.label ?? ''}: ${amountText(String(horizontal ? c.parsed.x : c.parsed.y))} ${currency}` } },
    },
    scales: horizontal ? { x: { ticks: { callback: money } } } : { y: { ticks: { callback: money } } },
  };
}

function spoken(title: string, months: OverviewMonthAnswer[], pick: (m: OverviewMonthAnswer) => string | null, currency: string): string {
  const parts = months.map((m) => `${m.label} ${pick(m) === null ? 'not consolidated' : `${amountText(pick(m))} ${currency}`}`);
  return `${title} by month: ${parts.join('; ')}`;
}

/** The budget's figure of each month shown (null where it has none), drawn as a dashed line. */
function budgetLine(budget: OverviewAnswer['budget'] | undefined, months: OverviewMonthAnswer[], pick: 'revenue' | 'netIncome', label: string) {
  if (!budget) return [];
  const byPeriod = new Map(budget.months.map((m) => [m.period, m]));
  const data = months.map((m) => num(byPeriod.get(m.period)?.[pick] ?? null));
  if (data.every((v) => v === null)) return [];
  return [{ type: 'line' as const, label: `${label} (${budget.name})`, data, borderColor: PURPLE, backgroundColor: PURPLE, borderDash: [6, 4], spanGaps: false, order: -1 }];
}

function chartConfigs(months: OverviewMonthAnswer[], parts: { label: string; value: string }[], currency: string, budget: OverviewAnswer['budget'] = null) {
  const labels = months.map((m) => shortMonth(m.period));
  const netBudget = budgetLine(budget, months, 'netIncome', 'Budget');
  /** One dataset: its chart's heading names it, no legend. */
  const single = (horizontal = false): ChartConfiguration['options'] => {
    const o = options(currency, horizontal)!;
    return { ...o, plugins: { ...o.plugins, legend: { display: false } } };
  };
  const revenue: ChartConfiguration = {
    type: 'bar',
    data: {
      labels,
      datasets: [
        { label: 'Revenue', data: months.map((m) => num(m.revenue)), backgroundColor: BLUE },
        { label: 'Gross margin', data: months.map((m) => num(m.grossMargin)), backgroundColor: GREEN },
        ...budgetLine(budget, months, 'revenue', 'Revenue budget'),
      ],
    },
    options: options(currency),
  };
  const netIncome: ChartConfiguration = {
    type: 'bar',
    data: { labels, datasets: [{ label: 'Net income', data: months.map((m) => num(m.netIncome)), backgroundColor: months.map((m) => ((num(m.netIncome) ?? 0) < 0 ? RED : GREEN)) }, ...netBudget] },
    // With a budget line there are two datasets: the legend names them.
    options: netBudget.length ? options(currency) : single(),
  };
  const cash: ChartConfiguration = {
    type: 'line',
    data: { labels, datasets: [{ label: 'Cash', data: months.map((m) => num(m.cash)), borderColor: GOLD, backgroundColor: GOLD, spanGaps: false, tension: 0.2 }] },
    options: single(),
  };
  const contribution: ChartConfiguration = {
    type: 'bar',
    data: { labels: parts.map((p) => p.label), datasets: [{ label: 'Profit', data: parts.map((p) => Number(p.value)), backgroundColor: parts.map((p) => (Number(p.value) < 0 ? RED : BLUE)) }] },
    options: single(true),
  };
  return { revenue, netIncome, cash, contribution };
}

export default function OverviewCharts({ months, overview }: { months: OverviewMonthAnswer[]; overview: OverviewAnswer }) {
  const { currency } = overview;
  const parts = useMemo(() => contributionRows(overview.contribution), [overview.contribution]);
  // Built once per answer: a new configuration object redraws its chart.
  const { revenue, netIncome, cash, contribution } = useMemo(() => chartConfigs(months, parts, currency, overview.budget), [months, parts, currency, overview.budget]);
  const budgetSaid = (pick: 'revenue' | 'netIncome') => {
    const b = overview.budget;
    if (!b) return '';
    const byPeriod = new Map(b.months.map((m) => [m.period, m]));
    return `. Budget (${b.name}) by month: ${months.map((m) => `${m.label} ${byPeriod.get(m.period)?.[pick] == null ? 'none' : `${amountText(byPeriod.get(m.period)![pick])} ${currency}`}`).join('; ')}`;
  };

  return (
    <div className="overview-charts">
      <section className="overview-chart" aria-labelledby="chart-revenue">
        <H3 id="chart-revenue">Revenue and gross margin</H3>
        <ChartCanvas config={revenue} label={`${spoken('Revenue', months, (m) => m.revenue, currency)}. ${spoken('Gross margin', months, (m) => m.grossMargin, currency)}${budgetSaid('revenue')}`} />
      </section>
      <section className="overview-chart" aria-labelledby="chart-net-income">
        <H3 id="chart-net-income">Net income</H3>
        <ChartCanvas config={netIncome} label={`${spoken('Net income', months, (m) => m.netIncome, currency)}${budgetSaid('netIncome')}`} />
      </section>
      <section className="overview-chart" aria-labelledby="chart-cash">
        <H3 id="chart-cash">Cash</H3>
        <ChartCanvas config={cash} label={spoken('Cash at month end', months, (m) => m.cash, currency)} />
      </section>
      <section className="overview-chart" aria-labelledby="chart-contribution">
        <H3 id="chart-contribution">Contribution by entity</H3>
        <ChartCanvas config={contribution} label={`Contribution to net income: ${parts.map((p) => `${p.label} ${amountText(p.value)} ${currency}`).join('; ')}`} />
      </section>
    </div>
  );
}
