// Registers ts-loader.mjs (see there). Test-only.
import { register } from 'node:module';
register('./ts-loader.mjs', import.meta.url);
