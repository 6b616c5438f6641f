import { exitOnConfigError } from '@blog/server-kit';
import { loadMediaConfig, startMediaService } from './index.js';

startMediaService(loadMediaConfig()).catch(exitOnConfigError);
