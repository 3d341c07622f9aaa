// Lists are cursor-paginated: {data, has_more, next_cursor}, next page via starting_after.
// A list call returns a PagePromise: `await` it for one page, or `for await` over it to walk
// every item of every page, fetching the next page only when the previous one is used up.

export class PagePromise {
  constructor(fetchPage, params) {
    this.fetchPage = fetchPage;
    this.params = params ?? {};
    this.first = null;
  }

  firstPage() {
    this.first ??= this.fetchPage(this.params);
    return this.first;
  }

  then(onFulfilled, onRejected) {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  catch(onRejected) {
    return this.firstPage().catch(onRejected);
  }

  finally(onFinally) {
    return this.firstPage().finally(onFinally);
  }

  async *[Symbol.asyncIterator]() {
    let page = await this.firstPage();
    for (;;) {
      yield* page.data;
      if (!page.has_more || !page.next_cursor) return;
      page = await this.fetchPage({ ...this.params, starting_after: page.next_cursor });
    }
  }

  /** Every item of every page, in order, as one array. */
  async toArray() {
    const all = [];
    for await (const item of this) all.push(item);
    return all;
  }
}
