/*
 * RdmaChannel: a full-duplex point-to-point link between two RdmaNetDevices
 * with a propagation delay. The sending device calls Transmit() when a frame
 * starts serialization; the channel schedules ONE event: the peer's Receive()
 * at now + txTime + delay (in the peer node's context).
 */

#ifndef RDMA_CHANNEL_H
#define RDMA_CHANNEL_H

#include "rdma-net-device.h"

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

namespace ns3
{

/**
 * \ingroup astra-sim
 * Full-duplex point-to-point channel for RdmaNetDevice.
 */
class RdmaChannel : public Channel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RdmaChannel();
    ~RdmaChannel() override;

    /**
     * Attach a device (at most two). Called by RdmaNetDevice::Attach.
     * \param dev the device
     * \return false if two devices are attached already
     */
    bool Attach(Ptr<RdmaNetDevice> dev);

    /**
     * Deliver a frame to the peer of from: its Receive() runs at now + txTime + delay.
     * \param frame the frame (moved into the event)
     * \param from the sending device
     * \param txTime serialization time of the frame
     */
    void Transmit(RdmaQueuedFrame&& frame, Ptr<RdmaNetDevice> from, Time txTime);

    /// \return the peer of dev (nullptr if none) \param dev one end
    Ptr<RdmaNetDevice> GetPeer(Ptr<const RdmaNetDevice> dev) const;
    Ptr<RdmaNetDevice> GetRdmaDevice(std::size_t i) const; //!< \return device i \param i 0/1
    Time GetDelay() const;                                 //!< \return propagation delay
    void SetDelay(Time delay);                             //!< set propagation delay
    uint64_t GetFramesDelivered() const; //!< \return frames handed to Transmit so far

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    Ptr<RdmaNetDevice> m_dev[2]; //!< the two ends
    std::size_t m_nDevices{0};   //!< attached devices
    Time m_delay;                //!< propagation delay
    uint64_t m_frames{0};        //!< frames transmitted
};

} // namespace ns3

#endif /* RDMA_CHANNEL_H */
