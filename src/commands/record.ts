// Placeholder until its issue lands: says so plainly and fails.
import type { CommandModule } from './command.js';

export const command: CommandModule = {
  summary: '(not built yet)',
  help: 'makerd record: not built yet',
  async main(_argv, io) {
    io.err('makerd record: not built yet');
    return 1;
  },
};
