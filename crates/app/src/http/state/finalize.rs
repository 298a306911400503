//! The end of a message's body (libhtp's `RES_FINALIZE`): a response whose body ended
//! in the middle of the data is not complete yet. libhtp reads the next line first:
//! one that cannot start a response is more body of the same message (a server that
//! sends more than its `Content-Length`), and the message completes only when a
//! response line comes, when the data runs out at a line boundary, or when the
//! connection closes. Until then its body is not complete for detection (Suricata
//! waits for the minimal inspect size) and its transaction is not logged.

use super::{HttpState, St};
use crate::{AppCtx, Direction};

impl HttpState {
    /// The body of the current message of `dir` ended. A request completes now; a
    /// response waits as libhtp's `RES_FINALIZE` does (see the module docs).
    pub(super) fn end_body(&mut self, ctx: &mut AppCtx, dir: Direction) {
        if dir == Direction::ToServer {
            return self.complete(ctx, dir);
        }
        let side = &mut self.sides[dir.index()];
        side.deferred = true;
        side.body_end = self.at[dir.index()];
        side.finalized = side.tx;
        side.st = Some(St::Line);
    }

    /// Completes a message waiting in [`HttpState::end_body`], if there is one.
    pub(super) fn finish_deferred(&mut self, ctx: &mut AppCtx, dir: Direction) {
        let d = dir.index();
        if std::mem::take(&mut self.sides[d].deferred) {
            // The message (its frame) ends with its body; a line that starts the next
            // one is not part of it.
            let at = std::mem::replace(&mut self.at[d], self.sides[d].body_end);
            self.complete(ctx, dir);
            self.at[d] = at;
        }
    }

    /// After a call's data: a waiting message completes when the data ran out at a
    /// line boundary (libhtp finds no next byte); a partial line keeps it waiting.
    pub(super) fn settle_deferred(&mut self, ctx: &mut AppCtx, dir: Direction) {
        let side = &self.sides[dir.index()];
        if side.deferred && side.line.is_empty() {
            self.finish_deferred(ctx, dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::http::{HttpState, Progress};
    use crate::{AppCtx, Direction::ToClient, Direction::ToServer};

    const REQ: &[u8] = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";

    fn response(s: &HttpState, i: usize) -> (Progress, Vec<u8>) {
        let tx = s.txs().nth(i).expect("transaction");
        (tx.response().progress(), tx.response().body().to_vec())
    }

    /// Bytes past the Content-Length are more body until a line ends at the end of
    /// the data (http-evader's "close,clen,content,junk" responses, where Suricata
    /// 7.0.10 logs the 136-byte body and alerts only at the end of the flow).
    #[test]
    fn bytes_past_the_content_length_are_more_body() {
        let (mut ctx, mut s) = (AppCtx::default(), HttpState::new());
        s.parse(&mut ctx, ToServer, REQ);
        s.parse(
            &mut ctx,
            ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbodyJUNK",
        );
        assert_eq!(response(&s, 0), (Progress::Body, b"body".to_vec()));
        s.parse(&mut ctx, ToClient, b" more\r\n");
        assert_eq!(
            response(&s, 0),
            (Progress::Complete, b"bodyJUNK more\r\n".to_vec())
        );
        // A partial line still waiting at the end of the flow is body too.
        let (mut ctx, mut s) = (AppCtx::default(), HttpState::new());
        s.parse(&mut ctx, ToServer, REQ);
        s.parse(
            &mut ctx,
            ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabXY",
        );
        assert_eq!(response(&s, 0).0, Progress::Body);
        s.close(&mut ctx);
        assert_eq!(response(&s, 0), (Progress::Complete, b"abXY".to_vec()));
        assert!(!s.txs().next().unwrap().response().truncated());
    }

    /// A body that ends with the data, or is followed by the next response, completes
    /// at once.
    #[test]
    fn a_body_ending_at_the_data_or_a_response_line_completes() {
        let (mut ctx, mut s) = (AppCtx::default(), HttpState::new());
        s.parse(&mut ctx, ToServer, REQ);
        s.parse(
            &mut ctx,
            ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody",
        );
        assert_eq!(response(&s, 0), (Progress::Complete, b"body".to_vec()));

        let (mut ctx, mut s) = (AppCtx::default(), HttpState::new());
        s.parse(&mut ctx, ToServer, REQ);
        s.parse(&mut ctx, ToServer, REQ);
        s.parse(
            &mut ctx,
            ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbodyHTTP/1.1 404 No\r\nContent-Length: 1\r\n\r\nx",
        );
        assert_eq!(response(&s, 0), (Progress::Complete, b"body".to_vec()));
        assert_eq!(response(&s, 1), (Progress::Complete, b"x".to_vec()));
    }
}
