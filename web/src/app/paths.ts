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
  /** Where Intuit sends the browser back (set QBO_REDIRECT_URI to PUBLIC_URL + this path). */
  quickbooksCallback: '/apps/quickbooks/callback',
  /** Where Xero sends the browser back (set XERO_REDIRECT_URI to PUBLIC_URL + this path). */
  xeroCallback: '/apps/xero/callback',
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
