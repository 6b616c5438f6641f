import { exitOnConfigError } from '@blog/server-kit';
import { loadMailConfig, startMailService } from './index.js';

startMailService(loadMailConfig()).catch(exitOnConfigError);
