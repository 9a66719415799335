/*
 * RunControlOptions: the options that control a run rather than describe it
 * (progress, hang detection, random streams, MPI, event order, huge pages),
 * shared by the programs that build an AstraSimScenario (astra-sim-runner,
 * training-on-roce): one registration, one meaning, one place that applies them.
 */

#ifndef ASTRA_RUN_CONTROL_OPTIONS_H
#define ASTRA_RUN_CONTROL_OPTIONS_H

#include <cstdint>
#include <string>

namespace ns3
{
namespace astra
{

class AstraCommandLine;
class AstraSimScenario;

/**
 * \ingroup astra-sim
 * Run-control options of the scenario programs.
 *
 * \code
 * RunControlOptions run;
 * run.AddTo(cmd);              // --progress-seconds --hang-ns --rng-stream --mpi
 *                              // --huge-pages --event-order
 * cmd.Parse(argc, argv);
 * run.Start(&argc, &argv);     // MPI (input error without it), the event order
 * AstraSimScenario sc;
 * run.Configure(sc);           // monitor attributes, random streams
 * ... sc.Build(); run.Built(); sc.Run();
 * \endcode
 */
class RunControlOptions
{
  public:
    /// Register the options (values checked by the command line's ranges).
    /// \param cmd the program's command line
    void AddTo(AstraCommandLine& cmd);
    /**
     * After parsing, before anything uses the Simulator: start MPI with --mpi (an input
     * error in a build without it) and select the event order (EventOrder::Select).
     * \param argc main's argc
     * \param argv main's argv
     */
    void Start(int* argc, char*** argv);
    /// Set the scenario's run monitor (progress, hang timeout) and random streams.
    /// \param sc the scenario, not built yet
    void Configure(AstraSimScenario& sc) const;
    /// The simulation is built: with --huge-pages, collapse the heap into 2 MiB pages.
    void Built() const;

    /// \return --mpi
    bool IsMpi() const
    {
        return m_mpi;
    }

  private:
    double m_progressSec{5};          //!< --progress-seconds
    uint64_t m_hangNs{10000000};      //!< --hang-ns
    int64_t m_rngStream{0};           //!< --rng-stream
    bool m_mpi{false};                //!< --mpi
    bool m_hugePages{true};           //!< --huge-pages
    std::string m_eventOrder{"node"}; //!< --event-order
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_RUN_CONTROL_OPTIONS_H */
