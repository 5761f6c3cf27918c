// The formatting helpers: what a finance user reads instead of system values.
import { DASHBOARDS_FAILED, formatBytes, formatDate, formatDateTime, formatDateTimeWithZone, formatDuration, formatPhone, formatRole, formatValue, keyLabel, labelledDetails, ONBOARDING_LABELS, parseDashboards, perPage, plural, statusLabel, timeZoneName, titleForPath } from './format';

describe('dates', () => {
  it('shows a day as YYYY-MM-DD', () => {
    expect(formatDate(new Date(2026, 10, 3, 8, 5))).toBe('2026-11-03');
    expect(formatDate(undefined)).toBe('');
  });

  it('shows a time with its zone, never the ISO text', () => {
    const iso = '2026-11-23T18:22:13.423Z';
    const text = formatDateTimeWithZone(iso);
    expect(text).toMatch(/^2026-11-2\d \d{2}:\d{2} \S+/);
    expect(text).not.toContain('T18');
    expect(text.endsWith(timeZoneName(new Date(iso)))).toBe(true);
    expect(formatDateTimeWithZone(null)).toBe('');
  });
});

describe('formatPhone', () => {
  it.each([
    ['5551234567', '(555) 123-4567'],
    ['555-123-4567', '(555) 123-4567'],
    ['(555) 123 4567', '(555) 123-4567'],
    ['+1 555 123 4567', '+1 (555) 123-4567'],
    ['+44 20 7946 0958', '+44 20 7946 0958'],
    ['', ''],
  ])('%s reads as %s', (raw, shown) => {
    expect(formatPhone(raw)).toBe(shown);
  });
});

describe('words', () => {
  it('names roles as people say them', () => {
    expect(formatRole('admin')).toBe('Admin');
    expect(formatRole('user')).toBe('User');
    expect(formatRole(undefined)).toBe('');
  });

  it('counts in singular and plural', () => {
    expect(plural(1, 'run')).toBe('1 run');
    expect(plural(2, 'run')).toBe('2 runs');
    expect(plural(0, 'user')).toBe('0 users');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
    expect(perPage(10)).toBe('10 per page');
  });

  it('turns status values and keys into labels', () => {
    expect(statusLabel('not_started')).toBe('Not started');
    expect(statusLabel('up_to_date')).toBe('Up to date');
    expect(statusLabel('completed')).toBe('Completed');
    expect(statusLabel('reconnect needed')).toBe('Reconnect needed');
    expect(keyLabel('factoryImportedAt')).toBe('Factory imported at');
    expect(statusLabel(null)).toBe('');
  });
});

describe('labelledDetails', () => {
  it('labels known keys, formats times and lists, hides ids and secrets', () => {
    const details = labelledDetails(
      { containerName: 'acmefiles', dataFactoryName: 'acmefactory', factoryImportedAt: '2026-11-23T18:22:13.423Z', pipelines: ['load', 'rebuild'], sqlAdminPasswordEnc: 'x', orgID: '6b04844f', location: '' },
      ONBOARDING_LABELS,
    );
    expect(details.map((d) => d.label)).toEqual(['Container', 'Data factory', 'Template imported', 'Pipelines']);
    expect(details[2]!.value).toBe(formatDateTimeWithZone('2026-11-23T18:22:13.423Z'));
    expect(details[3]!.value).toBe('load, rebuild');
    expect(JSON.stringify(details)).not.toMatch(/6b04844f|Enc|T18:22/);
    expect(formatValue(true)).toBe('Yes');
  });
});

describe('times, durations and sizes', () => {
  it('shows a time to the minute without seconds or the ISO text', () => {
    expect(formatDateTime(new Date(2026, 0, 5, 9, 7, 59))).toBe('2026-01-05 09:07');
    expect(formatDateTime('not a date')).toBe('not a date');
    expect(formatDateTime(null)).toBe('');
  });

  it('reads a duration in seconds, minutes or hours', () => {
    expect(formatDuration(4_400)).toBe('4s');
    expect(formatDuration(125_000)).toBe('2m 5s');
    expect(formatDuration(3_725_000)).toBe('1h 2m');
    expect(formatDuration(null)).toBe('');
  });

  it('reads a size in B, KB or MB', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
    expect(formatBytes(undefined)).toBe('');
  });
});

describe('dashboards and titles', () => {
  it('reads dashboards as a list or an escaped JSON string, and refuses anything else', () => {
    expect(parseDashboards([{ name: 'Revenue', url: 'https://bi.example.com/r' }])).toEqual([{ name: 'Revenue', url: 'https://bi.example.com/r' }]);
    expect(parseDashboards(JSON.stringify(JSON.stringify([{ dashboardName: 'Cash', dashboardUrl: 'https://bi.example.com/c' }])))).toEqual([{ name: 'Cash', url: 'https://bi.example.com/c' }]);
    expect(parseDashboards('')).toEqual([]);
    expect(() => parseDashboards('{oops')).toThrow(DASHBOARDS_FAILED);
    expect(() => parseDashboards([{ name: 'No url' }])).toThrow(DASHBOARDS_FAILED);
  });

  it('titles a page from its path', () => {
    expect(titleForPath('/')).toBe('LedgerFlow Homepage');
    expect(titleForPath('/org-onboarding')).toBe('Org - Onboarding');
    expect(titleForPath('/change-password')).toBe('Change Password');
    expect(titleForPath('/reports')).toBe('Reports');
  });
});
