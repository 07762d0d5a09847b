//! Live tuning on an NVIDIA GPU through cudarc (NVRTC, driver, CUPTI) and NVML.
