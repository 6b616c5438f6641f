import { exitOnConfigError } from '@blog/server-kit';
import { loadPostsConfig, startPostsService } from './index.js';

startPostsService(loadPostsConfig()).catch(exitOnConfigError);
