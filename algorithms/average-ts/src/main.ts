import { runAlgorithm } from '@federa/algorithm-tools';

import * as average from './average.js';

process.exitCode = await runAlgorithm(average);
