export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Await for the first page; iterate with `for await` for every item of every page. */
export class PagePromise<Page extends ListPage<Item>, Item> implements PromiseLike<Page>, AsyncIterable<Item> {
  then<A = Page, B = never>(onFulfilled?: ((value: Page) => A | PromiseLike<A>) | null, onRejected?: ((reason: any) => B | PromiseLike<B>) | null): Promise<A | B>;
  catch<B = never>(onRejected?: ((reason: any) => B | PromiseLike<B>) | null): Promise<Page | B>;
  finally(onFinally?: (() => void) | null): Promise<Page>;
  [Symbol.asyncIterator](): AsyncIterator<Item>;
  toArray(): Promise<Item[]>;
}
