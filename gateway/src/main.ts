import { exitOnConfigError } from '@blog/server-kit';
import { createGateway, loadGatewayConfig } from './index.js';

createGateway(loadGatewayConfig()).catch(exitOnConfigError);
