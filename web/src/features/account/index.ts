// What other features may use of the account feature (the admin dashboard's Account tab).
export { AccountSettings } from './AccountSettings';
