//! Reading a rendered texture back to the CPU: the one function the CLI and the tests share.

use crate::render::RenderError;

/// Bytes per row of a texture-to-buffer copy: rows are padded to 256 bytes
/// (`wgpu::COPY_BYTES_PER_ROW_ALIGNMENT`).
pub fn padded_bytes_per_row(width: u32) -> u32 {
    let unpadded = width * 4;
    unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// Copy a single-sample RGBA8 texture (`Rgba8Unorm` or `Rgba8UnormSrgb`: the bytes are returned
/// as stored, so an sRGB texture gives sRGB-encoded pixels) into an image. Blocks until done.
///
/// # Errors
/// [`RenderError::Readback`] when mapping fails or the texture is not 4 bytes per texel.
pub fn read_rgba8(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<image::RgbaImage, RenderError> {
    if !matches!(texture.format(), wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Rgba8UnormSrgb) {
        return Err(RenderError::Readback(format!("unsupported format {:?}", texture.format())));
    }
    let (width, height) = (texture.width(), texture.height());
    let bytes_per_row = padded_bytes_per_row(width);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(bytes_per_row) * u64::from(height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(height),
            },
        },
        wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);

    let (sender, receiver) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |result| {
        // The receiver waits below; a send error only means it is gone.
        let _ = sender.send(result);
    });
    device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| RenderError::Readback(e.to_string()))?;
    receiver
        .recv()
        .map_err(|e| RenderError::Readback(e.to_string()))?
        .map_err(|e| RenderError::Readback(e.to_string()))?;

    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    {
        let mapped = buffer.get_mapped_range(..).map_err(|e| RenderError::Readback(e.to_string()))?;
        for row in mapped.chunks_exact(bytes_per_row as usize).take(height as usize) {
            pixels.extend_from_slice(&row[..(width * 4) as usize]);
        }
    }
    buffer.unmap();
    image::RgbaImage::from_raw(width, height, pixels)
        .ok_or_else(|| RenderError::Readback("pixel count does not match the size".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_pad_to_256_bytes() {
        assert_eq!(padded_bytes_per_row(1), 256);
        assert_eq!(padded_bytes_per_row(64), 256);
        assert_eq!(padded_bytes_per_row(65), 512);
        assert_eq!(padded_bytes_per_row(256), 1024);
    }
}
