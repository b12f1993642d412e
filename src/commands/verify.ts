// Placeholder until its issue lands: says so plainly and fails.
import type { CommandModule } from './command.js';

export const command: CommandModule = {
  summary: '(not built yet)',
  help: 'makerd verify: not built yet',
  async main(_argv, io) {
    io.err('makerd verify: not built yet');
    return 1;
  },
};
