/** The one route table of the app (spec section 2). */
export const paths = {
  home: '/',
  login: '/login',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  resetPasswordSuccess: '/reset-password/success',
  fileUpload: '/file-upload',
  pipelines: '/pipelines',
  /** The data explorer: the organization's tables; /data/{table} opens one. */
  data: '/data',
  consolidation: '/consolidation',
  reports: '/reports',
  apps: '/apps',
  /** Where an oauth2-code connector's ledger sends the browser back: /apps/<key>/callback (set <PREFIX>_REDIRECT_URI to PUBLIC_URL + it, e.g. /apps/quickbooks/callback). */
  appCallback: '/apps/:connector/callback',
  dashboard: '/dashboard',
  organizations: '/organizations',
  orgOnboarding: '/org-onboarding',
  users: '/users',
  /** Admins: every organization's connections and work at once. */
  operations: '/operations',
  changePassword: '/change-password',
  faq: '/faq',
  aboutUs: '/about-us',
  privacyPolicy: '/privacy-policy',
  licenseAgreement: '/license-agreement',
} as const;

/** One table in the data explorer; an admin's link names the organization (?org=), a user's is their own. */
export function dataTablePath(table: string, orgId?: string): string {
  return `${paths.data}/${encodeURIComponent(table)}${orgId ? `?org=${encodeURIComponent(orgId)}` : ''}`;
}
