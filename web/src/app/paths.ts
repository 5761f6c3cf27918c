/** The one route table of the app (spec section 2). */
export const paths = {
  home: '/',
  login: '/login',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  resetPasswordSuccess: '/reset-password/success',
  fileUpload: '/file-upload',
  pipelines: '/pipelines',
  consolidation: '/consolidation',
  apps: '/apps',
  /** Where Intuit sends the browser back (set QBO_REDIRECT_URI to PUBLIC_URL + this path). */
  quickbooksCallback: '/apps/quickbooks/callback',
  dashboard: '/dashboard',
  organizations: '/organizations',
  orgOnboarding: '/org-onboarding',
  users: '/users',
  changePassword: '/change-password',
  faq: '/faq',
  aboutUs: '/about-us',
  privacyPolicy: '/privacy-policy',
  licenseAgreement: '/license-agreement',
} as const;
