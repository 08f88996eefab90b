import type { DataChannel, PeerConnection } from 'node-datachannel';

/** Largest offer we accept: a data-channel-only offer with candidates is a few KB. */
const MAX_OFFER_BYTES = 16 * 1024;
const GATHER_TIMEOUT_MS = 5000;
/**
 * Most bytes a media channel may hold unsent before packets are dropped: about 16 KB is a second
 * of one speaker (or a tenth of a second of ten). SCTP queues what the congestion or receive
 * window holds back even on a no-retransmit channel, so without a bound a slow receiver would
 * hear the call later and later; real-time audio is better lost than late.
 */
export const MAX_MEDIA_BUFFERED_BYTES = 16 * 1024;

export interface WebRtcAnswer {
  sdp: string;
  peer: PeerConnection;
}

/**
 * The webrtc voice transport (contracts-voice.md 2): the client offers one unordered,
 * no-retransmit data channel named `media` with all its candidates (no trickle); we answer with
 * ours once gathering is complete. Each message on the channel is one transport-sealed RTP
 * packet, so the relay treats it exactly like UDP. node-datachannel (libdatachannel) does the
 * ICE, DTLS and SCTP.
 */
export async function answerWebRtcOffer(offer: unknown, options: { bindAddress?: string }, onChannel: (channel: DataChannel) => void): Promise<WebRtcAnswer> {
  if (typeof offer !== 'string' || offer.length === 0 || offer.length > MAX_OFFER_BYTES || !offer.startsWith('v=0')) {
    throw new Error('invalid SDP offer');
  }
  // libdatachannel is loaded with the first browser that joins voice (about 7 MB), not at start.
  const { PeerConnection } = await import('node-datachannel');
  const peer = new PeerConnection('voice', { iceServers: [], ...(options.bindAddress ? { bindAddress: options.bindAddress } : {}) });
  peer.onDataChannel((channel) => {
    if (channel.getLabel() === 'media') onChannel(channel);
    else channel.close();
  });
  try {
    const gathered = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('ICE gathering timed out')), GATHER_TIMEOUT_MS);
      peer.onGatheringStateChange((state) => {
        if (state === 'complete') {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    peer.setRemoteDescription(offer, 'offer');
    if (peer.gatheringState() !== 'complete') await gathered;
    const answer = peer.localDescription();
    if (!answer) throw new Error('no local description');
    return { sdp: answer.sdp, peer };
  } catch (err) {
    peer.close();
    throw err;
  }
}

/** What the relay sends through to one WebRTC participant: packets past the buffer bound are dropped (and counted). */
export function dataChannelSink(channel: Pick<DataChannel, 'isOpen' | 'bufferedAmount' | 'sendMessageBinary'>, onDrop: () => void): { send(packet: Uint8Array): void } {
  return {
    send(packet) {
      if (!channel.isOpen()) return;
      if (channel.bufferedAmount() > MAX_MEDIA_BUFFERED_BYTES) return onDrop();
      // The channel copies on send, but the view is the relay's scratch: copy from the pool.
      channel.sendMessageBinary(Buffer.from(packet));
    },
  };
}
