import { exitOnConfigError } from '@blog/server-kit';
import { loadSocialConfig, startSocialService } from './index.js';

startSocialService(loadSocialConfig()).catch(exitOnConfigError);
