/*
 * SwitchMmu: Broadcom-style shared-buffer memory management unit of a RoCE
 * switch (pure accounting logic, no devices, unit-testable).
 *
 * Ingress accounting per (port, priority): bytes are charged first to a
 * small reserved area, then to the shared pool, then (lossless priorities,
 * after PAUSE) to the per-(port, priority) headroom. An ingress queue is
 * paused when its shared use >= Alpha x (free shared buffer) (dynamic
 * threshold) and resumed when its headroom is empty and its shared use fell
 * below the threshold minus a hysteresis. Lossless frames are dropped only
 * when the headroom is exhausted (a configuration bug, reported loudly by the
 * switch). Lossy priorities (or PFC disabled) are admitted by a dynamic
 * threshold on the egress (port, priority) queue and dropped tail otherwise.
 * Release (when the frame left the egress port) uncharges headroom first,
 * then shared, then reserved.
 */

#ifndef SWITCH_MMU_H
#define SWITCH_MMU_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Shared-buffer MMU with PFC dynamic thresholds and headroom.
 */
class SwitchMmu : public Object
{
  public:
    static constexpr uint32_t kPrios = 8; //!< 802.1Q priorities

    static TypeId GetTypeId(); //!< \return the TypeId
    SwitchMmu();
    ~SwitchMmu() override;

    /// Admission verdict.
    enum Verdict : uint8_t
    {
        ACCEPT = 0,       //!< frame admitted
        DROP = 1,         //!< lossy frame dropped (over threshold / buffer full)
        LOSSLESS_DROP = 2 //!< lossless frame dropped: headroom exhausted (a bug)
    };

    /// Result of Admit().
    struct AdmitResult
    {
        Verdict verdict{ACCEPT}; //!< admission verdict
        bool pause{false};       //!< the ingress (port, priority) just entered PAUSE
    };

    /**
     * Headroom needed per (port, priority) to absorb in-flight data after a
     * PAUSE: 2 x delay x rate + 2 x MTU frame + rate x response time.
     * \param rate link rate
     * \param delay one-way propagation delay of the link
     * \param mtuFrameBytes largest frame (bytes on the wire incl. preamble/IFG)
     * \param response PFC response time of the upstream port
     * \return bytes (rounded up)
     */
    static uint64_t ComputeHeadroom(DataRate rate,
                                    Time delay,
                                    uint32_t mtuFrameBytes,
                                    Time response);

    /**
     * Check a fixed headroom against the requirement of a link.
     * \param who switch name
     * \param port port index
     * \param given headroom configured
     * \param required headroom needed (ComputeHeadroom)
     * \return "" if fine, else the error text
     */
    static std::string CheckHeadroom(const std::string& who,
                                     uint32_t port,
                                     uint64_t given,
                                     uint64_t required);

    /**
     * Check that the buffer holds reserved + headroom and leaves a shared pool.
     * \param who switch name
     * \param bufferBytes total buffer
     * \param reservedBytes sum of reserved areas
     * \param headroomBytes sum of headrooms
     * \param minSharedBytes smallest acceptable shared pool
     * \return "" if fine, else the error text
     */
    static std::string CheckBuffer(const std::string& who,
                                   uint64_t bufferBytes,
                                   uint64_t reservedBytes,
                                   uint64_t headroomBytes,
                                   uint64_t minSharedBytes);

    /// Name used in error messages (e.g. "switch 7").
    void SetName(const std::string& name);
    /// \return the name used in messages
    const std::string& GetName() const;

    /**
     * Add a port. Its headroom is the fixed HeadroomBytes attribute if set,
     * else ComputeHeadroom(rate, delay, GetMtuFrameBytes(), ResponseTime).
     * \param rate link rate
     * \param delay link propagation delay
     * \param mtuFrameBytes largest frame the port carries, on the wire incl.
     *        preamble/IFG (0 = unknown); used when the MtuFrameBytes attribute is 0
     * \return the port index
     */
    uint32_t AddPort(DataRate rate, Time delay, uint32_t mtuFrameBytes = 0);
    /// \return MtuFrameBytes if set, else the largest port value, else 1110
    uint32_t GetMtuFrameBytes() const;
    /// \return number of ports
    uint32_t GetNPorts() const;

    /// \return "" if the configuration is valid, else the error text
    std::string CheckConfiguration() const;
    /// Validate (NS_FATAL_ERROR with CheckConfiguration()'s text) and size the shared pool.
    void Finalize();

    /**
     * Admit a frame arriving on inPort (priority inPrio) for egress outPort
     * (priority outPrio; differs from inPrio only where a switch re-tags frames,
     * e.g. dateline classes on rings).
     * \param inPort ingress port
     * \param inPrio ingress priority (ingress accounting, PFC, lossless-ness)
     * \param outPort egress port
     * \param outPrio egress priority (egress accounting)
     * \param bytes frame bytes
     * \return verdict and pause transition
     */
    AdmitResult Admit(uint32_t inPort,
                      uint8_t inPrio,
                      uint32_t outPort,
                      uint8_t outPrio,
                      uint32_t bytes);

    /// Admit with the same priority at ingress and egress \return see above
    /// \param inPort ingress \param outPort egress \param prio priority \param bytes size
    AdmitResult Admit(uint32_t inPort, uint32_t outPort, uint8_t prio, uint32_t bytes)
    {
        return Admit(inPort, prio, outPort, prio, bytes);
    }

    /**
     * Release a frame that left outPort.
     * \param inPort ingress port it came from
     * \param inPrio its ingress priority
     * \param outPort egress port
     * \param outPrio its egress priority
     * \param bytes frame bytes
     * \return true if the ingress (inPort, inPrio) leaves PAUSE now (send resume)
     */
    bool Release(uint32_t inPort,
                 uint8_t inPrio,
                 uint32_t outPort,
                 uint8_t outPrio,
                 uint32_t bytes);

    /// Release with the same priority at ingress and egress \return see above
    /// \param inPort ingress \param outPort egress \param prio priority \param bytes size
    bool Release(uint32_t inPort, uint32_t outPort, uint8_t prio, uint32_t bytes)
    {
        return Release(inPort, prio, outPort, prio, bytes);
    }

    /// \return true if the ingress (port, prio) is in PAUSE state
    bool IsPaused(uint32_t port, uint8_t prio) const;

    /// \return true if prio is lossless (PFC enabled and in LosslessPriorities)
    bool IsLossless(uint8_t prio) const
    {
        return m_pfcEnabled && ((m_losslessMask >> prio) & 1);
    }

    /// \return current dynamic threshold Alpha x (pool - used) in bytes
    uint64_t GetThreshold() const;
    uint64_t GetSharedPoolBytes() const;                         //!< \return shared pool size
    uint64_t GetSharedUsedBytes() const;                         //!< \return shared bytes in use
    uint64_t GetIngressBytes(uint32_t port, uint8_t prio) const; //!< \return all ingress bytes
    uint64_t GetIngressSharedBytes(uint32_t port, uint8_t prio) const;   //!< \return shared part
    uint64_t GetIngressHeadroomBytes(uint32_t port, uint8_t prio) const; //!< \return headroom part
    uint64_t GetEgressBytes(uint32_t port, uint8_t prio) const;          //!< \return egress queue

    /**
     * A hint, shortly before a frame of priority prio arrives on port: prefetch what
     * Admit reads of that port (changes nothing).
     * \param port ingress port \param prio priority
     */
    void PrefetchIngress(uint32_t port, uint8_t prio) const
    {
        if (port < m_ports.size())
        {
            __builtin_prefetch(&m_ports[port].in[prio & 7]);
        }
    }

    /**
     * A hint, shortly before Admit towards egress \p port: prefetch its counters.
     * \param port egress port \param prio egress priority
     */
    void PrefetchEgress(uint32_t port, uint8_t prio) const
    {
        if (port < m_ports.size())
        {
            __builtin_prefetch(&m_ports[port].egress[prio & 7]);
            __builtin_prefetch(&m_ports[port].egressTotal);
        }
    }

    uint64_t GetEgressPortBytes(uint32_t port) const;    //!< \return egress bytes of all priorities
    uint64_t GetMaxEgressPortBytes(uint32_t port) const; //!< \return peak of GetEgressPortBytes
    uint64_t GetHeadroom(uint32_t port) const;         //!< \return headroom per priority of a port
    uint64_t GetRequiredHeadroom(uint32_t port) const; //!< \return computed requirement of a port
    uint64_t GetReservedBytes() const;                 //!< \return reserved per (port, priority)
    uint64_t GetHysteresisBytes() const;               //!< \return effective hysteresis
    double GetAlpha() const;                           //!< \return alpha

  private:
    /// Per (port, priority) ingress state.
    struct IngressQ
    {
        uint64_t reserved{0}; //!< bytes in the reserved area
        uint64_t shared{0};   //!< bytes in the shared pool
        uint64_t headroom{0}; //!< bytes in headroom
        bool paused{false};   //!< PAUSE state
    };

    /// Per port state.
    struct Port
    {
        std::array<IngressQ, kPrios> in;       //!< ingress queues
        std::array<uint64_t, kPrios> egress{}; //!< egress bytes
        uint64_t egressTotal{0};               //!< egress bytes, all priorities
        uint64_t egressMax{0};                 //!< peak egressTotal
        uint64_t headroom{0};                  //!< headroom per lossless priority
        uint64_t required{0};                  //!< computed headroom requirement
        uint32_t mtuFrame{0};                  //!< largest frame of the port (0: unknown)
        DataRate rate;                         //!< link rate
        Time delay;                            //!< link delay
    };

    bool CanResume(const IngressQ& q) const; //!< resume condition
    void SizePorts();                        //!< compute each port's required/headroom

    std::vector<Port> m_ports; //!< ports
    std::string m_name;        //!< name for messages
    bool m_finalized{false};   //!< Finalize() done

    // attributes
    uint64_t m_bufferBytes;     //!< total buffer
    uint32_t m_reservedBytes;   //!< reserved per (port, priority)
    double m_alpha;             //!< dynamic threshold factor (ingress, lossless)
    double m_egressAlpha;       //!< dynamic threshold factor (egress, lossy)
    uint32_t m_hysteresisBytes; //!< 0 = 2 x MtuFrameBytes
    uint32_t m_mtuFrameBytes;   //!< largest frame on the wire
    uint64_t m_fixedHeadroom;   //!< 0 = computed per port
    Time m_responseTime;        //!< PFC response time
    bool m_pfcEnabled;          //!< PFC on/off
    uint8_t m_losslessMask;     //!< lossless priorities

    uint64_t m_hystMtu{1110}; //!< MTU frame used by the default hysteresis (per packet)
    uint64_t m_sharedPool{0}; //!< shared pool size
    uint64_t m_sharedUsed{0}; //!< shared bytes in use
};

} // namespace ns3

#endif /* SWITCH_MMU_H */
