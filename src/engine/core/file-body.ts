// A response body that is a finished file on disk (the manual snapshot's spooled archive): the
// adapter sends it with one reusable buffer instead of a read stream's fresh piece per read, and
// its length is known before the first byte. Whoever made the file learns once that the sending
// is over (sent, failed, or abandoned by the client) and removes it.

export class FileBody {
  private over = false;

  constructor(
    readonly path: string,
    /** Bytes to send: the file's whole length. */
    readonly size: number,
    private readonly onOver: () => void,
  ) {}

  /** The sending is over, however it ended; the first call runs onOver, later ones nothing. */
  end(): void {
    if (this.over) return;
    this.over = true;
    this.onOver();
  }
}
