// ESM twin of ecosystem.config.cjs (the package is "type": "module"). pm2 reads `apps` from it
// with require() only on Node >= 22.12; on Node 20 run `pm2 start ecosystem.config.cjs`.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const config = require('./ecosystem.config.cjs');

export const apps = config.apps;
export default config;
