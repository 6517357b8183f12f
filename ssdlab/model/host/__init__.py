"""The host layer: partition, block device, the ext4-like file system and its journal, file
trees and file-system workloads, device and host profiles, timing, block traces and their
replay. Sits on the flash layer; imports nothing from the lab layer."""
