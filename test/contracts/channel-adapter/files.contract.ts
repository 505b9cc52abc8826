/** Contract cases of files: images to the model, documents saved into the workspace, refused files named in a notice. */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { ForeignFileHost, type FakeFile } from '../../fakes/fake-file-host.js';
import { imagesIn, lastUserText } from '../../helpers/llm-images.js';
import { lacks, PDF_BYTES, pngOf, type ContractContext } from './driver.js';

export function fileCases<U>(ctx: () => ContractContext<U>): void {
  let foreign: ForeignFileHost;
  before(async () => {
    foreign = await ForeignFileHost.start();
  });
  after(async () => {
    await foreign.close();
  });

  it('passes an image in a thread to the model as an image part, shrunk to the provider limit, and saves the original', async (t) => {
    const { d, owner } = ctx();
    if (lacks(t, d, 'attachments')) return;
    d.llm.enqueue({ text: 'Ready.' });
    const threadId = await d.mention(owner, 'I will send a picture');
    await d.waitFor(() => d.texts(threadId).includes('Ready.'), 'first answer');
    const png = await pngOf(2400, 1200);
    d.llm.enqueue({ text: 'A red rectangle.' });
    d.sayWithFiles(owner, threadId, 'what is in this picture?', [
      { name: 'red.png', contentType: 'image/png', bytes: png },
    ]);
    await d.waitFor(() => d.texts(threadId).includes('A red rectangle.'), 'answer about the image');
    const body = d.llm.requests.at(-1)?.body;
    const images = imagesIn(body);
    assert.equal(images.length, 1, 'one image part');
    assert.equal(images[0]?.mediaType, 'image/png');
    const seen = await sharp(images[0]?.bytes).metadata();
    assert.deepEqual([seen.width, seen.height], [1568, 784], 'resized to the 1568 px long edge');
    assert.match(lastUserText(body), /what is in this picture\?/);
    assert.match(lastUserText(body), /attachments\/red\.png/);
    assert.deepEqual(await d.workspaceFile(threadId, 'attachments/red.png'), png, 'the original is in the workspace');
    assert.ok(d.fileRequests().length >= 1, 'downloaded from the platform file host');
  });

  it('saves a PDF into the workspace and names it in the message', async (t) => {
    const { d, owner } = ctx();
    if (lacks(t, d, 'attachments')) return;
    d.llm.enqueue({ text: 'Got the PDF.' });
    const threadId = await d.mention(owner, 'a document follows');
    d.llm.enqueue({ text: 'I can read it with read_file.' });
    await d.waitFor(() => d.texts(threadId).includes('Got the PDF.'), 'first answer');
    d.sayWithFiles(owner, threadId, 'summarise this', [
      { name: 'Q3 report.pdf', contentType: 'application/pdf', bytes: PDF_BYTES },
    ]);
    await d.waitFor(() => d.texts(threadId).includes('I can read it with read_file.'), 'answer about the PDF');
    const body = d.llm.requests.at(-1)?.body;
    assert.equal(imagesIn(body).length, 0);
    assert.match(lastUserText(body), /summarise this/);
    assert.match(lastUserText(body), /attachments\/Q3 report\.pdf \(application\/pdf/);
    assert.deepEqual(await d.workspaceFile(threadId, 'attachments/Q3 report.pdf'), PDF_BYTES);
  });

  it('names an oversize file, another host, a redirect off the platform and a web page in one notice, and keeps the text', async (t) => {
    const { d, owner } = ctx();
    if (lacks(t, d, 'attachments')) return;
    d.llm.enqueue({ text: 'Send them.' });
    const threadId = await d.mention(owner, 'files follow');
    await d.waitFor(() => d.texts(threadId).includes('Send them.'), 'first answer');
    const elsewhere = foreign.put('/elsewhere.png', {
      name: 'elsewhere.png',
      contentType: 'image/png',
      bytes: await pngOf(10, 10),
    });
    const files: FakeFile[] = [
      {
        name: 'huge.bin',
        contentType: 'application/octet-stream',
        bytes: Buffer.from('small really'),
        declaredSize: 5 * 1024 * 1024,
      },
      { name: 'elsewhere.png', contentType: 'image/png', bytes: Buffer.alloc(0), url: elsewhere },
      { name: 'moved.pdf', contentType: 'application/pdf', bytes: PDF_BYTES, redirectTo: elsewhere },
      { name: 'login.pdf', contentType: 'application/pdf', bytes: PDF_BYTES, servedType: 'text/html' },
      { name: 'fine.txt', contentType: 'text/plain', bytes: Buffer.from('plain text') },
    ];
    d.llm.enqueue({ text: 'Only the text file arrived.' });
    d.sayWithFiles(owner, threadId, 'please look at all of these', files);
    await d.waitFor(
      () => d.texts(threadId).includes('Only the text file arrived.'),
      'answer despite the refused files',
    );
    const notice = d.texts(threadId).find((text) => text.includes('Some attachments were not used'));
    assert.ok(notice, 'one notice in the thread');
    assert.match(notice, /huge\.bin: too large \(5\.0 MB; the limit is 1\.0 MB\)/);
    assert.match(notice, /elsewhere\.png: it is not hosted by the platform/);
    assert.match(notice, /moved\.pdf: the file host redirected to another host/);
    assert.match(notice, /login\.pdf: the file host sent a web page instead of the file/);
    assert.doesNotMatch(notice, /fine\.txt/);
    const text = lastUserText(d.llm.requests.at(-1)?.body);
    assert.match(text, /please look at all of these/);
    assert.match(text, /\[Attachment huge\.bin was not used: too large/);
    assert.match(text, /attachments\/fine\.txt \(text\/plain/);
    assert.deepEqual(foreign.store.requests, [], 'nothing was fetched from the other host');
    assert.equal(await d.workspaceFile(threadId, 'attachments/login.pdf'), undefined, 'a refused file is not saved');
  });
}
