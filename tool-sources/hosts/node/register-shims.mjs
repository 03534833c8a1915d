import { register } from 'node:module';

register('./shims.mjs', import.meta.url);
