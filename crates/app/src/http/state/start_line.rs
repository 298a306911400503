//! The start lines of HTTP/1.x messages: a request line opens a transaction, a status
//! line attaches a response to the oldest transaction still waiting for one.

use super::*;

impl HttpState {
    pub(super) fn request_line(&mut self, ctx: &mut AppCtx, buf: &[u8]) {
        let l = chomp(buf);
        if trim(l).is_empty() {
            return;
        }
        let id = self.new_tx(ctx);
        self.sides[0].tx = Some(id);
        let Some(tx) = find_tx(&mut self.txs, Some(id)) else {
            return;
        };
        let rl = parse_request_line(l);
        // A missing protocol followed by a header line: libhtp parses the headers.
        let no_protocol = rl.protocol.is_empty() && !self.sides[0].header_follows;
        pool::set(&mut tx.request.line, l);
        tx.request.version = Some(if no_protocol {
            ProtocolVersion::V0_9
        } else {
            parse_protocol(&l[rl.protocol.clone()])
        });
        let uri = &l[rl.uri.clone()];
        normalize_uri_into(uri, &mut tx.uri_norm);
        if let Some(a) = split_uri(uri).authority {
            let auth = &uri[a];
            let h = &auth[host_range(auth)];
            tx.set_host(h, h);
            tx.port = host_port(auth);
        }
        tx.request.set_parts([rl.method, rl.uri, rl.protocol]);
        tx.request.progress = Progress::Line;
        if no_protocol {
            tx.request.build_header_buffers(Direction::ToServer);
            self.complete(ctx, Direction::ToServer);
        } else {
            self.sides[0].st = Some(St::Headers);
        }
    }

    pub(super) fn response_line(&mut self, ctx: &mut AppCtx, buf: &[u8]) {
        let l = chomp(buf);
        if trim(l).is_empty() {
            return;
        }
        let id = match self.sides[1].tx {
            Some(id) => id,
            None if self.next_res < self.next_id => self.next_res,
            None => {
                let id = self.new_tx(ctx);
                self.next_res = id;
                ev::raise(
                    &mut self.events,
                    ctx,
                    ev::UNABLE_TO_MATCH_RESPONSE_TO_REQUEST,
                    Some(id),
                );
                id
            }
        };
        self.sides[1].tx = Some(id);
        let Some(tx) = find_tx(&mut self.txs, Some(id)) else {
            return;
        };
        pool::reset(&mut tx.response);
        tx.response.min_inspect = ctx.config.min_inspect(crate::Direction::ToClient);
        tx.status = None;
        if !looks_like_response_line(l) {
            tx.response.version = Some(ProtocolVersion::V0_9);
            tx.response.progress = Progress::Body;
            tx.response.build_header_buffers(Direction::ToClient);
            self.sides[1].st = Some(St::UntilClose);
            self.body(ctx, Direction::ToClient, buf);
            return;
        }
        let rl = parse_response_line(l);
        pool::set(&mut tx.response.line, l);
        tx.response.version = Some(parse_protocol(&l[rl.protocol.clone()]));
        tx.status = parse_status(&l[rl.status.clone()]);
        tx.response.set_parts([rl.protocol, rl.status, rl.message]);
        tx.response.progress = Progress::Line;
        let bad_proto = !ev::exact_protocol(&tx.response.line[tx.response.part_range(0)]);
        let bad_status = tx.status.is_none_or(|s| s > 999);
        self.sides[1].st = Some(St::Headers);
        if bad_proto {
            self.raise(ctx, Direction::ToClient, ev::RESPONSE_INVALID_PROTOCOL);
        }
        if bad_status {
            self.raise(ctx, Direction::ToClient, ev::RESPONSE_INVALID_STATUS);
        }
    }
}
