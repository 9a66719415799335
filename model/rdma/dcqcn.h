/*
 * DCQCN reaction point (Zhu et al., SIGCOMM 2015), as a per-QP
 * RdmaCongestionOps. Every parameter is an attribute; defaults follow the
 * paper / docs/roce spec:
 *
 *  on CNP:            Rt = Rc; Rc = Rc (1 - alpha/2); alpha = (1-g) alpha + g;
 *                     the rate-increase timer and byte counter restart.
 *  no CNP for AlphaPeriod (55 us): alpha = (1-g) alpha (repeats every period).
 *  rate increase event (timer every RateIncreasePeriod, 55 us, and every
 *  ByteCounter bytes sent, 10 MB); T, BC = events counted by each since the
 *  last CNP:
 *     max(T, BC) <  F : fast recovery  Rc = (Rt + Rc)/2
 *     min(T, BC) >= F : hyper increase Rt += i R_HAI, i = min(T, BC) - F + 1
 *     otherwise       : additive       Rt += R_AI
 *     (additive and hyper also do Rc = (Rt + Rc)/2); Rt, Rc <= line rate.
 *
 * Alpha decay is computed lazily: the number of whole AlphaPeriods elapsed
 * since the last alpha update is applied when alpha is needed, which is
 * exactly what a periodic timer restarted on each CNP computes, without an
 * event per period. The increase timer only runs while Rc < line rate.
 * As in NIC implementations (the rate limiter is created on the first CNP), a
 * QP sends at line rate with alpha = AlphaInit until its first CNP; alpha decay
 * and the increase timer/byte counter start with that CNP.
 */

#ifndef RDMA_DCQCN_H
#define RDMA_DCQCN_H

#include "rdma-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"

namespace ns3
{

/**
 * \ingroup astra-sim
 * DCQCN reaction point.
 */
class RdmaCcDcqcn : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaCcDcqcn();
    RdmaCcDcqcn(const RdmaCcDcqcn& other); //!< copy attributes
    ~RdmaCcDcqcn() override;

    std::string GetName() const override;
    Ptr<RdmaCongestionOps> Fork() override;
    std::string Validate() const override;
    void Init(const RdmaCcInit& init) override;
    void Stop() override;
    void OnCnp(const RdmaMeta& meta) override;
    void OnSent(uint32_t payloadBytes) override;

    double GetAlpha();              //!< \return alpha (after applying pending decay)
    uint64_t GetTargetRate() const; //!< \return Rt (bit/s)
    uint64_t GetRai() const;        //!< \return effective R_AI (bit/s, after scaling)
    uint64_t GetRhai() const;       //!< \return effective R_HAI (bit/s, after scaling)
    uint32_t GetTimerStage() const; //!< \return T (timer increase events since the last CNP)
    uint32_t GetByteStage() const;  //!< \return BC (byte-counter events since the last CNP)

  protected:
    void DoDispose() override;

  private:
    void DecayAlpha();    //!< apply lazily the elapsed alpha periods
    void IncreaseTimer(); //!< rate increase timer expiry
    void Increase();      //!< one rate-increase event
    void ArmTimer();      //!< (re)start the increase timer

    // attributes
    double m_g{1.0 / 256};           //!< alpha gain g
    double m_alphaInit{1.0};         //!< initial alpha
    Time m_alphaPeriod;              //!< alpha decay period
    Time m_increasePeriod;           //!< rate increase timer period
    uint64_t m_byteCounter{0};       //!< bytes per byte-counter increase event (0 = off)
    uint32_t m_fastRecoverySteps{5}; //!< F
    DataRate m_rai;                  //!< R_AI (at ReferenceRate when scaling)
    DataRate m_rhai;                 //!< R_HAI (at ReferenceRate when scaling)
    DataRate m_minRate;              //!< floor of Rc
    bool m_scale{true};              //!< scale R_AI/R_HAI by line rate / ReferenceRate
    DataRate m_refRate;              //!< reference line rate for the R_AI/R_HAI values

    // state
    double m_alpha{1.0};
    Time m_alphaUpdated{0};
    uint64_t m_rt{0};
    uint64_t m_raiEff{0};
    uint64_t m_rhaiEff{0};
    uint32_t m_timerStage{0};
    uint32_t m_byteStage{0};
    uint64_t m_bytesSinceEvent{0};
    bool m_cnpSeen{false};
    EventId m_timer;
};

} // namespace ns3

#endif /* RDMA_DCQCN_H */
