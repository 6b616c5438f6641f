// Placeholder replaced below once the test database harness exists.
export default async function globalSetup() {}
