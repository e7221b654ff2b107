/* Photon command-processor firmware: entry point. */
#ifndef PHOTON_FIRMWARE_H
#define PHOTON_FIRMWARE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Runs one command ring to its END command (or to the first error) and returns the final
 * SYS.STATUS state: PHOTON_FW_STATE_DONE or PHOTON_FW_STATE_ERROR. */
unsigned photon_fw_main(void);

#ifdef __cplusplus
}
#endif

#endif /* PHOTON_FIRMWARE_H */
