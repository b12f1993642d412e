// ESM twin of ecosystem.config.cjs (the package is "type": "module"): `pm2 start ecosystem.config.js`
// works with pm2 7 on Node 20 (older pm2 versions need the .cjs).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const config = require('./ecosystem.config.cjs');

export const apps = config.apps;
export default config;
