import { exitOnConfigError } from '@blog/server-kit';
import { loadAuthConfig, startAuthService } from './index.js';

startAuthService(loadAuthConfig()).catch(exitOnConfigError);
