import nodemailer from 'nodemailer';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.ts';

/**
 * Where e-mails go: SMTP through nodemailer when SMTP_URL is set (whatever the sign-in mode),
 * otherwise an .eml file per message in DATA_DIR/outbox, its path logged. Both build the message
 * with nodemailer, so the files are exactly what SMTP would have carried.
 */

export type OutgoingMail = { to: string; subject: string; text: string; html: string; messageId: string };
/** `response`: the SMTP server's answer, or where the file was written. */
export type Mailer = { send(mail: OutgoingMail): Promise<{ response: string }>; close(): void };

/** Timeouts stay well inside a sender's lease, so a hung server never outlives the claim. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>): Mailer {
  const headers = (mail: OutgoingMail) => ({
    from: config.mailFrom,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: mail.messageId,
  });
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport({ url: config.smtpUrl, pool: true, maxConnections: 5, ...SMTP_TIMEOUTS } as never);
    return {
      async send(mail) {
        const info = await transport.sendMail(headers(mail));
        return { response: String(info.response ?? '') };
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  const dir = join(config.dataDir, 'outbox');
  return {
    async send(mail) {
      const info = await transport.sendMail(headers(mail));
      await mkdir(dir, { recursive: true });
      // Named by the Message-ID: a retried e-mail overwrites its own file.
      const path = join(dir, `${mail.messageId.replace(/[<>]/g, '').replace(/[^\w.@-]/g, '_')}.eml`);
      await writeFile(path, info.message as Buffer);
      console.log(`E-mail to ${mail.to} written to ${path}`);
      return { response: `written to ${path}` };
    },
    close() {},
  };
}
