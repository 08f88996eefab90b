import { randomBytes } from 'node:crypto';
import { LOGIN_PATTERN } from '../accounts/AccountService.ts';
import { hashPassword } from '../accounts/passwords.ts';
import { type CliCommand, CliUsageError, printJson, requireString } from './command.ts';
import { DATA_OPTIONS, DATA_USAGE, withStore } from './operatorStore.ts';

export const usersCreate: CliCommand = {
  words: ['users', 'create'],
  usage: `users create --username NAME [--password P] ${DATA_USAGE}
      Creates a full account and prints {id, username}. Without --password the account has a
      random password nobody knows: it can act only through tokens an operator issues.`,
  options: { username: { type: 'string' }, password: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const username = requireString(values, 'username', 'NAME').toLowerCase();
    if (!LOGIN_PATTERN.test(username)) throw new CliUsageError('--username: 2 to 32 letters, digits, dots or underscores');
    const password = typeof values.password === 'string' ? values.password : randomBytes(32).toString('base64url');
    if (password.length < 8 || password.length > 256) throw new CliUsageError('--password: 8 to 256 characters');
    const passwordHash = await hashPassword(password);
    const user = await withStore(values, (store) => store.accounts.create({ login: username, displayName: null, email: null, passwordHash }));
    if (!user) throw new CliUsageError(`the username ${username} is taken`);
    printJson(io, { id: user.id, username: user.username });
    return 0;
  },
};
